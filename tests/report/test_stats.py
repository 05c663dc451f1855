#!/usr/bin/python3
"""scripts/rfsim_tools/stats.py on crafted results folders: one workload of an rfsim-stats/2
stats.json as compare.csv's flat metrics (GPU statistics, roles, stalls, energy), and what it
refuses (another schema, no such workload, no --timing total, an energy in the wrong unit)."""

import copy
import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "scripts"))

from rfsim_tools.stats import StatsError, read_config, run_metrics  # noqa: E402


def stat(value, unit="count"):
    return {"value": value, "unit": unit, "desc": "..."}


ENERGY = {
    "_desc": "energy: events x energy per event, plus static power x time",
    "events": stat({"regfile_read": 100, "opcoll": 100}),
    "dynamic": stat({"regfile_read": 1.5, "regfile_write": 0.5, "opcoll": 1.0, "cars.rename_table": 0.25}, "nJ"),
    "static": stat({"sm": 40.0, "memory": 10.0, "constant": 30.0, "cars.rename_table": 0.5}, "nJ"),
    "dynamic_total": stat(3.25, "nJ"),
    "static_total": stat(80.5, "nJ"),
    "total": stat(83.75, "nJ"),
    "per_warp_instr": stat(0.8375, "nJ"),
    "power": stat(75.5, "W"),
    "gops_per_watt": stat(38.2, "ratio"),
}

GPU = {
    "cycles": stat(1000, "cycle"), "warp_instrs": stat(100), "thread_instrs": stat(3200),
    "ipc": stat(0.1, "ratio"),
    "sm": {"opcoll": {"rf_reads": stat([10, 20, 30]), "rf_writes": stat([5, 5]), "bank_conflicts": stat(7)},
           "issue": {"stall_cycles": stat({"s0.none": 60, "s0.scoreboard": 40, "s1.none": 40,
                                           "s1.scoreboard": 60}, "cycle")}},
    "l1d": {"accesses": stat(50), "hits": stat(20),
            "accesses_by_kind": stat({"global_load": 30, "local_load": 15, "local_store": 5})},
}

STATS = {
    "schema": "rfsim-stats/2",
    "run": {"config": "v100", "mechanisms": ["cars"], "timing": True, "size": "small", "max_regs": 0},
    "workloads": {
        "saxpy": {
            "passed": True, "detail": "16384 elements, exact",
            "summary": {"cycles": stat(1000, "cycle"), "warp_instrs": stat(100),
                        "wall_time": stat(2500000, "microsecond"),
                        "warp_instrs_by_role": stat({"code": 90, "spill": 6, "fill": 4})},
            "launches": [{"kernel": "saxpy", "variant": "cars", "gpu": GPU, "energy": ENERGY, "mechanisms": {}}],
            "total": {"gpu": GPU, "energy": ENERGY, "mechanisms": {}},
        },
    },
}

CONFIG = """# rfsim configuration 'v100', resolved
name: v100                      # name of this configuration

gpu:
  num_sms: 80                   # streaming multiprocessors
  clock_mhz: 1000.0             # core clock [MHz, 1..10000]

mechanisms:
  enabled: [cars]
  cars:
    rtl: false
"""


class StatsReaderTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="rfsim-stats-test-")
        with open(os.path.join(self.dir, "config.yaml"), "w") as f:
            f.write(CONFIG)
        self.write(STATS)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def write(self, doc):
        with open(os.path.join(self.dir, "stats.json"), "w") as f:
            json.dump(doc, f)

    def edited(self, change):
        doc = copy.deepcopy(STATS)
        change(doc)
        self.write(doc)

    def test_flat_metrics(self):
        m, units, detail = run_metrics(self.dir, "saxpy")
        self.assertEqual(detail, "16384 elements, exact")
        self.assertIs(m["passed"], True)
        self.assertEqual((m["cycles"], m["warp_instrs"], m["thread_instrs"], m["ipc"]), (1000, 100, 3200, 0.1))
        self.assertEqual((m["clock_mhz"], m["sim_time_us"]), (1000.0, 1.0))
        self.assertEqual((m["rf_reads"], m["rf_writes"], m["bank_conflicts"]), (60, 10, 7), "banks summed")
        self.assertEqual((m["l1d.accesses"], m["l1d.local"], m["l1d.global_load"]), (50, 20, 30))
        self.assertEqual((m["stall.issued"], m["stall.scoreboard"]), (100, 100), "schedulers summed by reason")
        self.assertEqual((m["instrs.code"], m["instrs.spill"], m["instrs.fill"]), (90, 6, 4))
        self.assertEqual(m["host_seconds"], 2.5)
        self.assertEqual((units["cycles"], units["host_seconds"], units["stall.issued"]), ("cycle", "second", "cycle"))

    def test_sampled_run_counts_what_was_extrapolated(self):
        def sampled(doc):
            w = doc["workloads"]["saxpy"]
            w["summary"]["thread_instrs"] = stat(9600)
            w["total"]["gpu"] = copy.deepcopy(GPU)
            w["total"]["gpu"]["sample"] = {"cycles_extrapolated": stat(3000, "cycle"),
                                           "warp_instrs_functional": stat(300),
                                           "share_functional": stat(0.75, "ratio")}
        self.edited(sampled)
        m, _, _ = run_metrics(self.dir, "saxpy")
        # The workload's cycles and instructions: the detailed ones plus the extrapolated ones.
        self.assertEqual((m["cycles"], m["warp_instrs"], m["thread_instrs"]), (4000, 400, 9600))
        self.assertAlmostEqual(m["ipc"], 0.1)
        self.assertEqual(m["sample.share_functional"], 0.75)
        self.assertEqual(m["rf_reads"], 60, "the other metrics: the detailed part")

    def test_energy_metrics(self):
        m, units, _ = run_metrics(self.dir, "saxpy")
        energy = {k: v for k, v in m.items() if k.startswith("energy.")}
        self.assertEqual(energy, {
            "energy.total": 83.75, "energy.power": 75.5, "energy.per_warp_instr": 0.8375,
            "energy.gops_per_watt": 38.2,
            "energy.dynamic.regfile_read": 1.5, "energy.dynamic.regfile_write": 0.5,
            "energy.dynamic.opcoll": 1.0, "energy.dynamic.cars.rename_table": 0.25,
            "energy.static.sm": 40.0, "energy.static.memory": 10.0, "energy.static.constant": 30.0,
            "energy.static.cars.rename_table": 0.5})
        self.assertEqual((units["energy.total"], units["energy.static.sm"], units["energy.power"],
                          units["energy.gops_per_watt"]), ("nJ", "nJ", "W", "ratio"))

    def test_no_energy_group_means_no_energy_metrics(self):
        self.edited(lambda d: d["workloads"]["saxpy"]["total"].pop("energy"))
        m, _, _ = run_metrics(self.dir, "saxpy")
        self.assertEqual([k for k in m if k.startswith("energy.")], [])
        self.assertEqual(m["cycles"], 1000)

    def test_null_ratio_is_absent(self):
        def null_power(d):
            d["workloads"]["saxpy"]["total"]["energy"] = dict(ENERGY, power=stat(None, "W"))
        self.edited(null_power)
        m, _, _ = run_metrics(self.dir, "saxpy")
        self.assertNotIn("energy.power", m)
        self.assertIn("energy.total", m)

    def test_energy_in_another_unit_is_refused(self):
        def picojoules(d):
            d["workloads"]["saxpy"]["total"]["energy"] = dict(ENERGY, total=stat(83750, "pJ"))
        self.edited(picojoules)
        with self.assertRaisesRegex(StatsError, r"energy\.total is not a statistic in nJ"):
            run_metrics(self.dir, "saxpy")

    def test_other_schemas_are_refused(self):
        self.edited(lambda d: d.update(schema="rfsim-stats/1"))
        with self.assertRaisesRegex(StatsError, "not rfsim-stats/2"):
            run_metrics(self.dir, "saxpy")
        os.remove(os.path.join(self.dir, "stats.json"))
        with self.assertRaisesRegex(StatsError, "stats.json: missing"):
            run_metrics(self.dir, "saxpy")

    def test_missing_workload_or_total(self):
        with self.assertRaisesRegex(StatsError, "no workload 'vecadd'"):
            run_metrics(self.dir, "vecadd")
        self.edited(lambda d: d["workloads"]["saxpy"].pop("total"))
        with self.assertRaisesRegex(StatsError, "--timing"):
            run_metrics(self.dir, "saxpy")

    def test_read_config(self):
        c = read_config(self.dir)
        self.assertEqual(c["name"], "v100")
        self.assertEqual(c["gpu.clock_mhz"], "1000.0")
        self.assertEqual(c["mechanisms.enabled"], "[cars]")
        self.assertNotIn("mechanisms.rtl", c, "deeper levels are not read")
        self.assertEqual(read_config(os.path.join(self.dir, "nowhere")), {})


if __name__ == "__main__":
    unittest.main(verbosity=2)

#!/usr/bin/python3
"""scripts/ncu_kernels.py on a crafted Nsight Compute output: rfsim-hw's result lines and ncu's
"Connected to process" lines say which child ran which workload, the CSV's launches are summed per
kernel (cycles, time, instructions), the clock averaged; the device line, pass or fail and the
size are kept; a launch no workload line claims is an error, a workload without a launch fails."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(os.path.dirname(os.path.dirname(HERE)), "scripts", "ncu_kernels.py")

HEAD = ('"ID","Process ID","Process Name","Kernel Name","gpu__time_duration.sum","sm__cycles_elapsed.max",'
        '"sm__cycles_elapsed.avg.per_second","smsp__inst_executed.sum"\n'
        '"","","","","us","cycle","Mhz","inst"\n')


def row(i, pid, kernel, us, cycles, mhz, inst):
    return f'"{i}","{pid}","rfsim-hw","{kernel}","{us}","{cycles:,}","{mhz}","{inst:,}"\n'


OUTPUT = ("workload                 check  launches    kernel ms  regs  local B  detail\n"
          "==PROF== Connected to process 11 (/x/rfsim-hw)\n"
          "wa                       pass          3       0.0000    24        0  fine\n"
          "==PROF== Connected to process 12 (/x/rfsim-hw)\n"
          "wb                       FAIL          1       0.0000    24        0  wrong\n"
          "device: Test GPU (sm_90, 132 SMs, 1980 MHz; driver API 13.0), kernels on 132 SMs\n"
          + HEAD
          + row(0, 11, "k1", 2.0, 4000, 2000.0, 100)
          + row(1, 11, "k1", 3.0, 6000, 1000.0, 300)
          + row(2, 11, "k2", 1.5, 3000, 1980.0, 50)
          + row(3, 12, "k3", 10.0, 19800, 1980.0, 1000))


def load(path):
    with open(path, encoding="utf-8") as f:
        return {e["workload"]: e for e in json.load(f)}


def run(tmp, text, *args):
    src = os.path.join(tmp, "ncu.txt")
    with open(src, "w", encoding="utf-8") as f:
        f.write(text)
    out = os.path.join(tmp, "out.json")
    p = subprocess.run([sys.executable, SCRIPT, src, "-o", out, *args], capture_output=True, text=True)
    return p, out


class NcuKernelsTest(unittest.TestCase):
    def test_launches_summed_per_kernel(self):
        with tempfile.TemporaryDirectory() as tmp:
            p, out = run(tmp, OUTPUT, "--size", "large")
            self.assertEqual(p.returncode, 0, p.stderr)
            doc = load(out)
            self.assertEqual(sorted(doc), ["wa", "wb"])
            k1 = doc["wa"]["kernels"]["k1"]["ncu"]
            self.assertEqual(k1["launches"], 2)
            self.assertEqual(k1["cycles"], 10000)
            self.assertAlmostEqual(k1["ns"], 5000.0)  # 2 us + 3 us
            self.assertAlmostEqual(k1["clock_mhz"], 1500.0)
            self.assertEqual(k1["cycles_per_launch"], 5000.0)
            self.assertEqual(k1["warp_instrs"], 400)
            self.assertEqual(doc["wa"]["kernels"]["k2"]["ncu"]["cycles"], 3000)
            self.assertTrue(doc["wa"]["passed"])
            self.assertFalse(doc["wb"]["passed"])
            self.assertEqual(doc["wa"]["size"], "large")
            self.assertEqual(doc["wa"]["sms"], 132)
            self.assertTrue(doc["wb"]["device"].startswith("Test GPU"))

    def test_rfsim_hw_fields_kept(self):
        with tempfile.TemporaryDirectory() as tmp:
            hw = os.path.join(tmp, "hw.json")
            with open(hw, "w", encoding="utf-8") as f:
                json.dump([{"workload": "wa", "passed": True, "size": "small", "sms": 8, "device": "D",
                            "kernels": {"k1": {"launches": 2, "ms_median": 0.5}}},
                           {"workload": "wb", "passed": False, "size": "small", "sms": 8, "device": "D",
                            "kernels": {}}], f)
            p, out = run(tmp, OUTPUT, "--hw", hw)
            self.assertEqual(p.returncode, 0, p.stderr)
            wa = load(out)["wa"]
            self.assertEqual(wa["sms"], 8)
            self.assertEqual(wa["kernels"]["k1"]["ms_median"], 0.5)
            self.assertEqual(wa["kernels"]["k1"]["ncu"]["cycles"], 10000)

    def test_a_workload_without_launches_fails(self):
        with tempfile.TemporaryDirectory() as tmp:
            hw = os.path.join(tmp, "hw.json")
            with open(hw, "w", encoding="utf-8") as f:
                json.dump([{"workload": "wa"}, {"workload": "wb"}, {"workload": "wc"}], f)
            p, _ = run(tmp, OUTPUT, "--hw", hw)
            self.assertEqual(p.returncode, 1)
            self.assertIn("wc: no profiled launch", p.stderr)

    def test_a_launch_of_an_unknown_process_is_an_error(self):
        with tempfile.TemporaryDirectory() as tmp:
            p, _ = run(tmp, OUTPUT + row(4, 99, "k9", 1.0, 100, 100.0, 1))
            self.assertNotEqual(p.returncode, 0)
            self.assertIn("process 99 ran k9", p.stderr)

    def test_no_csv_is_an_error(self):
        with tempfile.TemporaryDirectory() as tmp:
            p, _ = run(tmp, "wa   pass  1\n")
            self.assertNotEqual(p.returncode, 0)
            self.assertIn("no ncu CSV", p.stderr)


if __name__ == "__main__":
    unittest.main()

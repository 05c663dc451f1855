"""Published hardware figures for the microbenchmark table (scripts/ubench_table.py).

PUBLISHED[config][quantity] is a list of (value, source) pairs, the first the
one the model is compared with; a quantity without an entry is one for which
no published figure was found. Every source names where the figure was read:
  * this H100: docs/hw/h100/all-small.json, each ubench workload's `detail`
    (rfsim-hw on an NVIDIA H100 80GB HBM3 SXM5, 1980 MHz, docs/hardware.md);
    the same kernels and inputs as the model runs, so like for like;
  * this H200: docs/hw/h200/ubench-small.json likewise (rfsim-hw on an NVIDIA
    H200, the same GH100 die at 1980 MHz with HBM3e and 60 MiB of L2), for the
    core-side figures the H100 run predates: instruction fetch and calls;
  * a pointer chase per GPU in markdewing/AI_kernels, latency/README.md
    (clock cycles, clocks not locked): V100 L1 36, L2 221, main memory 460;
    H100 SXM L1 40, L2 291, main memory 700;
  * Jia et al. 2018 ("Dissecting the NVIDIA Volta GPU Architecture via
    Microbenchmarking") through the figures the configurations cite (V100
    L1 28, L2 193, shared 19 cycles, L2 2.1 TB/s; Maxwell L1 82, shared 23,
    a 6-cycle dependent add; the 4/4/5-cycle ADD/MUL/MAD of GPGPU-Sim's
    SM7_QV100, which configs/v100.yaml attributes to it): the paper's own
    tables were not re-read for this table;
  * NVIDIA datasheets and whitepapers for peak DRAM bandwidth and FP32 lanes;
    a measured V100 copy bandwidth (paranumal.com, "Rough-n-Ready Roofline:
    NVIDIA V100 edition", 2018: 790 GB/s by cudaMemcpy on a V100 PCIe 16GB).
Figures from Jia et al. 2019 (Turing T4), Luo et al. 2024 (Hopper, H800) and
Mei & Chu 2016 (GTX 980) were looked for and not found in a form that could be
read; none is used.
"""

_H100_HW = "this H100 (docs/hw/h100/all-small.json)"
_H200_HW = "this H200 (docs/hw/h200/ubench-small.json)"
_CHASE = "markdewing/AI_kernels latency/README.md"
_JIA_V = "Jia et al. 2018, V100 (as configs/v100.yaml cites)"
_JIA_M = "Jia et al. 2018, Maxwell (as configs/maxwell.yaml cites)"
_QV100 = "GPGPU-Sim SM7_QV100 ADD/MUL/MAD, attributed to Jia et al. 2018"

_VOLTA = {
    "l1_latency": [(28.0, _JIA_V), (36.0, _CHASE + ", V100")],
    "l2_latency": [(193.0, _JIA_V), (221.0, _CHASE + ", V100")],
    "dram_latency": [(460.0, _CHASE + ", V100")],
    "smem_latency": [(19.0, _JIA_V)],
    "int_add": [(4.0, _QV100)],
    "int_mul": [(4.0, _QV100)],
    "int_mad": [(5.0, _QV100)],
    "fp32_add": [(4.0, _QV100)],
    "fp32_mul": [(4.0, _QV100)],
    "fp32_fma": [(5.0, _QV100)],
    # One warp on one sub-core: 16 FP32 lanes per processing block.
    "fma_1src": [(2.0, "Volta whitepaper: 16 FP32 lanes per sub-core, 2 cycles per warp FMA")],
    "fp32_rate": [(2.0, "Volta whitepaper: 64 FP32 lanes per SM")],
    "fp32_peak": [(2.0, "Volta whitepaper: 64 FP32 lanes per SM")],
}

_MAXWELL = {
    "l1_latency": [(82.0, _JIA_M)],
    "smem_latency": [(23.0, _JIA_M)],
    "int_add": [(6.0, _JIA_M)],
    "fp32_add": [(6.0, _JIA_M)],
    "fp32_rate": [(4.0, "GTX 980 whitepaper: 128 FP32 lanes per SM")],
    "fp32_peak": [(4.0, "GTX 980 whitepaper: 128 FP32 lanes per SM")],
}

PUBLISHED = {
    "v100": dict(_VOLTA, dram_bandwidth=[(900.0, "Tesla V100 SXM2 datasheet, peak HBM2"),
                                         (790.0, "paranumal.com, V100 PCIe 16GB: cudaMemcpy measured")],
                 l2_bandwidth=[(2100.0, _JIA_V)]),
    "titanv": dict(_VOLTA, dram_bandwidth=[(652.8, "TITAN V datasheet, peak HBM2")]),
    "titanx": dict(_MAXWELL, dram_bandwidth=[(336.5, "GTX Titan X datasheet, peak GDDR5")]),
    "maxwell": dict(_MAXWELL),
    "h100": {
        "l1_latency": [(32.2, _H100_HW), (40.0, _CHASE + ", H100 SXM")],
        "l2_latency": [(274.5, _H100_HW), (291.0, _CHASE + ", H100 SXM")],
        # The H100's own 16 MiB chain stays in its 50 MiB L2 (367.3 cycles): not DRAM.
        "dram_latency": [(700.0, _CHASE + ", H100 SXM"), (367.3, _H100_HW + ": an L2 hit, not DRAM")],
        "smem_latency": [(23.0, _H100_HW)],
        "dram_bandwidth": [(3350.0, "H100 SXM5 datasheet, peak HBM3")],
        "smem_1way": [(23.01, _H100_HW)],
        "smem_32way": [(84.95, _H100_HW)],
        "smem_per_way": [(2.00, _H100_HW)],
        "smem_32way_indep": [(63.60, _H100_HW)],
        "fma_3src": [(1.86, _H100_HW)],
        "fma_2src": [(1.20, _H100_HW)],
        "fma_1src": [(1.20, _H100_HW)],
        "fma_fp64": [(3.22, _H100_HW)],
        "int_add": [(2.86, _H100_HW)],
        "int_mul": [(4.41, _H100_HW)],
        "int_mad": [(4.41, _H100_HW)],
        "int_div": [(59.12, _H100_HW)],
        "fp32_add": [(4.41, _H100_HW)],
        "fp32_mul": [(4.41, _H100_HW)],
        "fp32_fma": [(4.41, _H100_HW)],
        "fp32_div": [(57.85, _H100_HW)],
        "sfu_sin": [(23.23, _H100_HW)],
        "sfu_rsqrt": [(39.39, _H100_HW)],
        "sfu_ex2_lg2": [(39.39, _H100_HW)],
        "fp64_add": [(8.35, _H100_HW)],
        "fp64_fma": [(8.35, _H100_HW)],
        "fp64_div": [(125.35, _H100_HW)],
        "global_chase": [(197.33, _H100_HW)],
        "fp32_rate": [(4.0, "H100 whitepaper: 128 FP32 lanes per SM")],
        "fp32_peak": [(4.0, "H100 whitepaper: 128 FP32 lanes per SM")],
        # ubench_icache: 96 adds 628 / 100 clocks (first / second pass), 768 adds 2106 / 772.
        "icache_cold_96": [(628.0, _H200_HW)],
        "icache_warm_96": [(100.0, _H200_HW)],
        "icache_cold_768": [(2106.0 / 768, _H200_HW)],
        "icache_warm_768": [(772.0 / 768, _H200_HW)],
        "icache_miss": [(528.0, _H200_HW)],
        # ubench_calls, 128 calls: 68.16 clocks per call + return, 6.12 per inline add.
        "call_chain": [(68.16, _H200_HW)],
        "call_overhead": [(62.05, _H200_HW)],
    },
}

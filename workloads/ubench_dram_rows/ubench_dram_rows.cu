// DRAM row hits against row conflicts: the pointer chase of
// ubench_mem_latency (the same `mem_chase` kernel, included here so that this
// workload's PTX is its own), run by the host over the same 16 MiB of lines
// once in address order and once in random order (ubench_dram_rows_host.cpp).
#include "../ubench_mem_latency/ubench_mem_latency.cu"

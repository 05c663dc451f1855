#!/usr/bin/env python3
"""Write a temperature and a power file for Rodinia's hotspot (one value a line, N x N),
since the Rodinia repository's data/ is empty. Values in the ranges of Rodinia's own files:
temperatures 323-345 K, power 0-0.0015 W. Usage: hotspot_input.py N TEMP_FILE POWER_FILE"""
import random
import sys

n, temp, power = int(sys.argv[1]), sys.argv[2], sys.argv[3]
rng = random.Random(1)
with open(temp, "w") as f:
    f.writelines(f"{rng.uniform(323.0, 345.0):.6f}\n" for _ in range(n * n))
with open(power, "w") as f:
    f.writelines(f"{rng.uniform(0.0, 0.0015):.6f}\n" for _ in range(n * n))

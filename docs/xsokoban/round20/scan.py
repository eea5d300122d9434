"""Sample push-fess settings; run each on some screens at a CPU budget, two at a time.

    python docs/xsokoban/round20/scan.py 18,21 30 24 1 OUT_DIR      # levels, seconds, count, seed

Round 20 ran this command and stopped it after 13 settings had run; the settings that changed
fess_space.OUT_OF_PLAN_LIMIT failed to start (the constant is compiled into the kernels), and
fess.CORRAL_DEADLOCKS did not take before round 20's --set fix (every setting ran with 200).
"""
import random, subprocess, sys, json, os
from pathlib import Path
BENCH = str(Path(__file__).resolve().parents[3] / "benchmarks" / "bench_search.py")
from concurrent.futures import ThreadPoolExecutor
levels, seconds, count, seed, out = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
SPACE = {
    "fess.ALTERNATE": [2, 3, 4, 6],
    "fess.ROOM_LINKS": [0, 1, 2],
    "fess.CORRAL_DEADLOCKS": [0, 200, 1000],
    "fess.PACK_MACROS": [0, 2],
    "fess.CLUSTER_DEADLOCKS": [0, 1 << 14],
    "fess_space.OUT_OF_PLAN_LIMIT": [1, 4],
    "fess_space.CONNECTIVITY_LIMIT": [4, 8],
    "fess.CELL_WEIGHTS": [(-1, -1), (1, 1), (0, 1), (1, 3)],
}
WEIGHTS = [2.0, 3.0, 5.0]
rng = random.Random(seed)
jobs = []
for i in range(count):
    sets = {k: rng.choice(v) for k, v in SPACE.items()}
    w = rng.choice(WEIGHTS)
    args = ["python", BENCH, "--suite", "xsokoban", "--algo", "push-fess",
            "--time-limit", str(seconds), "--clock", "cpu", "--levels", levels, "--weight", str(w),
            "--results", f"{out}/c{seed}-{i}.jsonl"]
    for k, v in sets.items():
        args += ["--set", f"{k}={v!r}".replace(" ", "")]
    jobs.append(args)
def run(a):
    subprocess.run(a, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
with ThreadPoolExecutor(2) as ex:
    list(ex.map(run, jobs))

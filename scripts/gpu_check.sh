#!/usr/bin/env bash
# One-shot checks for a lent GPU machine: installs nothing, writes everything under "$OUT".
#
#   OUT=/tmp/gpu-check scripts/gpu_check.sh            # all sections
#   scripts/gpu_check.sh bench accuracy                 # only these sections
#   GPU_CHECK_DEVICE=cpu scripts/gpu_check.sh bench     # dry run of the plumbing on a CPU machine
#
# Each section is a function `section_NAME`; it runs with its own time limit, its output goes to
# "$WORK/NAME.log", and "$WORK/summary.txt" gets one line per section (exit code, seconds), so one
# failing section never hides the others. Sections owned by other parts of gpu-tui (inventory,
# monitor, screenshots) are added below as further functions and listed in SECTIONS.
set -u

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-${TMPDIR:-/tmp}/gpu-check}"  # the device runner sets OUT
mkdir -p "$OUT"
# Sections write into WORK; at the end it is packed into "$WORK/gpu-check.tar.gz" next to
# "$WORK/summary.txt", because the device tool brings back at most 8 files.
WORK="$(mktemp -d)"
cd "$ROOT" || exit 2

# --- set-up: a Python with CUDA torch (nothing is installed) --------------------------------
DEVICE="${GPU_CHECK_DEVICE:-cuda:0}"

find_python() {
    local candidate need="torch.cuda.is_available()"
    [ "$DEVICE" != cpu ] || need="True"
    for candidate in "${GPU_CHECK_PYTHON:-}" "$ROOT/.venv/bin/python" python3 python; do
        [ -n "$candidate" ] || continue
        if "$candidate" -c "import torch, sys; sys.exit(0 if $need else 1)" \
            >/dev/null 2>&1; then
            command -v "$candidate" || echo "$candidate"
            return 0
        fi
    done
    return 1
}

section_environment() {
    nvidia-smi || true
    nvidia-smi --query-gpu=name,uuid,driver_version,pcie.link.gen.max,pcie.link.width.max,clocks.max.sm,clocks.max.mem,power.limit --format=csv || true
    "$PY" -c "import torch, sys; print(sys.version); print('torch', torch.__version__, 'cuda', torch.version.cuda, 'devices', torch.cuda.device_count())"
    "$PY" -c "import torch; print(torch.cuda.get_device_properties(0))" || true
    "$PY" -c "import triton; print('triton', triton.__version__)" || echo "triton: not importable"
    "$PY" -c "import textual, psutil; print('gpu-tui deps importable')" || echo "gpu-tui deps missing: bench falls back to the bare worker"
}

# --- benchmarks ---------------------------------------------------------------------
BENCH_BUDGET="${BENCH_BUDGET:-0.1}"

section_bench() {
    # The quick suite on the GPU (and the CPU side of the comparisons) at a short budget. The
    # JSON carries gpu-tui's NVML telemetry per result and before/after in the environment
    # ("GPU telemetry while timed", gpu_tui/core/bench/__init__.py); nvidia-smi's own samples
    # beside it are the cross-check.
    local query=timestamp,index,clocks.sm,clocks.mem,power.draw,power.limit,temperature.gpu
    ( nvidia-smi --query-gpu="$query,clocks_event_reasons.active" --format=csv -lms 500 \
        || nvidia-smi --query-gpu="$query,clocks_throttle_reasons.active" --format=csv -lms 500 ) \
        >"$WORK/bench-nvidia-smi.csv" 2>&1 &
    local smi=$! code=0
    (
    if GPU_TUI_DATA_DIR="$WORK/data" "$PY" -m gpu_tui bench --suite quick --device cpu --device "$DEVICE" \
        --budget "$BENCH_BUDGET" --json --out "$WORK/bench-quick.csv" >"$WORK/bench-quick.json"; then
        GPU_TUI_DATA_DIR="$WORK/data" "$PY" -m gpu_tui bench --suite quick --device cpu --device "$DEVICE" \
            --budget "$BENCH_BUDGET" --baseline "$WORK/bench-quick.json" --only gemm bandwidth \
            >"$WORK/bench-table.txt" 2>&1 || true
        exit 0
    fi
    # gpu-tui's own dependencies may be missing here: the worker needs only torch, so run it bare
    # and keep its raw protocol lines (gpu-tui turns them into a document with % of peak later;
    # there is no gpu-tui telemetry then, only bench-nvidia-smi.csv).
    echo "gpu-tui CLI failed; running the worker directly" >&2
    # (python -c puts the current folder, the checkout, first on sys.path: gpu_tui is found)
    "$PY" -c "
import json, sys
from gpu_tui.core.bench.suites import build_plan
print(json.dumps(build_plan('quick', devices=sorted({'cpu', sys.argv[2]}), budget_seconds=float(sys.argv[1]))))
" "$BENCH_BUDGET" "$DEVICE" | "$PY" -u gpu_tui/core/bench/worker/launch.py >"$WORK/bench-worker.jsonl"
    ) || code=$?
    kill "$smi" 2>/dev/null
    # what the GPU did during each result, for the log (empty on a CPU-only dry run)
    "$PY" - "$WORK/bench-quick.json" <<'PYTELEMETRY' || true
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
except (OSError, ValueError) as error:
    sys.exit(f"no bench document: {error}")
print("environment telemetry:", json.dumps((doc.get("environment") or {}).get("telemetry")))
for r in doc["results"]:
    t = r.get("telemetry")
    name = f"{r['benchmark']} {r['variant']} {r['dtype']} {r['params']}"
    if t:
        print(f"{name}: cache={r.get('cache')} {json.dumps(t)}")
    if r["device"] != "cpu":  # how it was timed: warm-up clock, short-kernel graph replay
        keys = ("method", "warmup_stable", "warmup_sm_clock_mhz", "warmup_clock_unreadable",
                "calls_per_graph", "launch_inclusive_seconds", "graph_skipped")
        timing = r.get("timing") or {}
        print(f"{name}: median={r['median_seconds']:.3g}s", {k: timing.get(k) for k in keys})
PYTELEMETRY
    return $code
}

section_accuracy() {
    # bf16 8192³ GEMM vs triton.testing.do_bench (skipped inside if triton is missing) and
    # device copy bandwidth vs a plain CUDA-event loop; the script exits 1 outside ±5 %.
    local kind=cuda
    [ "$DEVICE" != cpu ] || kind=cpu
    "$PY" scripts/bench_accuracy.py --device "$kind" --rounds 3 --budget 0.5 --json "$WORK/accuracy-gpu.json"
}

# --- nvml: every NVML call gpu-tui makes, raw answer beside what gpu-tui shows ----------------
section_nvml() {
    "$PY" scripts/nvml_recording.py --out "$WORK/nvml-recording.json"
}

# --- inventory: what NVML and the peak arithmetic say about this GPU -------------------------
section_inventory() {
    "$PY" -m gpu_tui info --json >"$WORK/info.json"
    "$PY" -m gpu_tui info >"$WORK/info.txt"
    cat "$WORK/info.txt"
}

# --- monitor: sampler tick time on real NVML, and a minute under a GEMM load --------
section_monitor() {
    "$PY" scripts/bench_sampler.py >"$WORK/bench-sampler.txt" 2>&1 || true
    cat "$WORK/bench-sampler.txt"
    [ "$DEVICE" != cpu ] || return 0
    "$PY" - "$DEVICE" <<'PYLOAD' &
import sys, time, torch
device = sys.argv[1]
a = torch.randn(8192, 8192, device=device, dtype=torch.bfloat16)
b = torch.randn_like(a)
end = time.time() + 62
while time.time() < end:
    for _ in range(20):
        a @ b
    torch.cuda.synchronize()
PYLOAD
    load=$!
    "$PY" -m gpu_tui watch --json --interval 1 --count 60 >"$WORK/watch-under-load.jsonl"
    wait "$load"
    tail -n 3 "$WORK/watch-under-load.jsonl"
}

# --- screenshots: the real app, headless, on the real GPU --------------------
section_screenshots() {
    "$PY" scripts/screenshots.py --real --out "$WORK/screenshots"
}

SECTIONS=(environment nvml inventory monitor bench accuracy screenshots)
declare -A LIMIT=([environment]=60 [nvml]=60 [inventory]=60 [monitor]=120 [bench]=300 [accuracy]=120 [screenshots]=120)

PY="$(find_python)" || {
    echo "gpu_check.sh: no Python with CUDA torch found (set GPU_CHECK_PYTHON)" | tee "$OUT/summary.txt"
    exit 1
}
export PY ROOT OUT WORK BENCH_BUDGET DEVICE
wanted=("$@")
[ ${#wanted[@]} -gt 0 ] || wanted=("${SECTIONS[@]}")
: >"$OUT/summary.txt"
status=0
for name in "${wanted[@]}"; do
    declare -F "section_$name" >/dev/null || { echo "unknown section $name" >>"$OUT/summary.txt"; status=2; continue; }
    start=$(date +%s)
    echo "== $name" >&2
    # a subshell per section, so a failure or a time-out stays inside it
    timeout --kill-after=10 "${LIMIT[$name]:-300}" bash -c "$(declare -f "section_$name"); section_$name" \
        >"$WORK/$name.log" 2>&1
    code=$?
    echo "$name: exit $code in $(( $(date +%s) - start )) s" | tee -a "$OUT/summary.txt" >&2
    [ $code -eq 0 ] || status=1
done
cp "$OUT/summary.txt" "$WORK/summary.txt"
tar -czf "$OUT/gpu-check.tar.gz" -C "$WORK" .
exit $status

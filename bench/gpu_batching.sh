#!/usr/bin/env bash
# One-shot GPU measurement of batched synthesis (docs/decisions/125-batched-synthesis.md), for a machine
# with an NVIDIA GPU and this repository set up (./setup.sh). Not run yet: no GPU was available.
#
#   bench/gpu_batching.sh                     # everything, about 20-40 minutes on one H200
#   KOKORO_TORCH_MODEL=/path/kokoro-v1_0.pth bench/gpu_batching.sh   # the official weights
#
# 1. In the model's own process (python -m kokoro_bench batching): the torch engine's aggregate audio-seconds per
#    second, batch 1 against batches of 8/16/32/64, with all cores and pinned to 4 (taskset -c 0-3, the
#    vCPUs of an ml.g5.xlarge).
# 2. On the real server (python -m kokoro_bench against it): a concurrency ladder of sessions, batching off
#    (--max-batch 1) against on (--max-batch $BATCH), all cores against 4; the ladder is pushed further
#    until first-audio p95 passes 300 ms, so the capacity is a measurement, not a lower bound.
# Every figure goes to $OUT as JSON, and a summary table (the card named) to $OUT/batching_summary.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

# Knobs (environment), for a shorter run or a smoke test of this script on a CPU (DEVICE=cpu).
PY=${PY:-.venv/bin/python}
OUT=${OUT:-bench/results/gpu}
DEVICE=${DEVICE:-cuda}
BATCH=${BATCH:-16}
SIZES=${SIZES:-1,8,16,32,64}
PIECES=${PIECES:-64}
CORES=(${CORES:-all 0-3})
TEXTS=${TEXTS:-typical}
LADDER=${LADDER:-1,2,4,8,16,32,48,64,96,128}
FURTHER=(${FURTHER-192 256 384 512 768 1024})
SERVER_ARGS=(${SERVER_ARGS:-})
P95_LIMIT_S=${P95_LIMIT_S:-0.3}
export HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
export PYTHONPATH="$PWD/container:$PWD/agent:$PWD/speech_protocol:$PWD/cli:$PWD/stacks:$PWD/bench:$PWD/devtools:$PWD${PYTHONPATH:+:$PYTHONPATH}"

if [ "$DEVICE" = cuda ]; then CARD=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); else CARD=cpu; fi
echo "card: $CARD, cores: $(nproc)"
mkdir -p "$OUT"
WEIGHTS=${KOKORO_TORCH_MODEL:-}
if [ -z "$WEIGHTS" ]; then  # the int8 ONNX export's weights, rebuilt (086-torch-weights-from-onnx.md)
    WEIGHTS="$OUT/kokoro-rebuilt.pth"
    [ -f "$WEIGHTS" ] || "$PY" -m kokoro_devtools.torch_weights --out "$WEIGHTS"
fi

pin_for() { [ "$1" = all ] && echo "" || echo "taskset -c $1"; }

# 1. the engine alone against batched, in process
for cores in "${CORES[@]}"; do
    $(pin_for "$cores") "$PY" -m kokoro_bench batching --device "$DEVICE" --torch-model "$WEIGHTS" --pieces "$PIECES" \
        --max-batch "$SIZES" --rounds 2 --json "$OUT/batching_engine_${cores}.json"
done

# the largest session count of a ladder file whose first-audio p95 is within the limit (0 if none)
last_p95_ok() {
    "$PY" - "$1" "$P95_LIMIT_S" <<'EOF'
import json, sys
rows = json.load(open(sys.argv[1]))["concurrency"]
print(int(all(r["ttfa_p95_s"] <= float(sys.argv[2]) for r in rows)))
EOF
}

# 2. the server's ladder: batching off and on, all cores and 4
PORT=18090
for cores in "${CORES[@]}"; do
    for max_batch in 1 "$BATCH"; do
        name="ladder_${cores}_batch${max_batch}"
        log="$OUT/$name.server.log"
        $(pin_for "$cores") "$PY" -m kokoro_server --engine torch --device "$DEVICE" --torch-model "$WEIGHTS" \
            --max-batch "$max_batch" --max-sessions 4096 --max-connections 8192 --port "$PORT" "${SERVER_ARGS[@]}" \
            >"$log" 2>&1 &
        server=$!
        until curl -sf "http://127.0.0.1:$PORT/ping" >/dev/null; do
            kill -0 "$server" 2>/dev/null || { echo "server died: see $log"; exit 1; }
            sleep 2
        done
        url="http://127.0.0.1:$PORT"
        run_ladder() {  # $1: session counts, $2: json file
            "$PY" -m kokoro_bench --server-url "$url" --engine torch --device "$DEVICE" --texts "$TEXTS" --sweep-words '' \
                --repeats 1 --concurrency "$1" --json "$2"
        }
        run_ladder "$LADDER" "$OUT/$name.json"
        if [ "$(last_p95_ok "$OUT/$name.json")" = 1 ]; then
            for sessions in "${FURTHER[@]}"; do  # still within 300 ms: push on until it is not
                run_ladder "$sessions" "$OUT/${name}+${sessions}.json"
                [ "$(last_p95_ok "$OUT/${name}+${sessions}.json")" = 1 ] || break
            done
        fi
        kill "$server"
        wait "$server" || true
        PORT=$((PORT + 1))
    done
done

# the summary: per setting, the most sessions at zero stall with first-audio p95 <= 300 ms, and the peak
"$PY" - "$OUT" "$CARD" "$P95_LIMIT_S" <<'EOF' | tee "$OUT/batching_summary.txt"
import glob, json, os, sys
out, card, limit = sys.argv[1], sys.argv[2], float(sys.argv[3])
for path in sorted(glob.glob(os.path.join(out, "batching_engine_*.json"))):
    for run in json.load(open(path))["runs"]:
        print(f"{card} engine {os.path.basename(path)[16:-5]:>4} cores, max_batch {run['max_batch']:3}: "
              f"{run['audio_s_per_s']:8.1f} audio-s/s (rtf {run['rtf']:.4f})")
settings = sorted({os.path.basename(p)[:-5].split("+")[0] for p in glob.glob(os.path.join(out, "ladder_*.json"))})
for setting in settings:
    files = [os.path.join(out, setting + ".json"), *glob.glob(os.path.join(out, setting + "+*.json"))]
    rows = [r for p in files for r in json.load(open(p))["concurrency"]]
    held = [r for r in rows if r["ttfa_p95_s"] <= limit and r["max_stall_s"] == 0]
    best = max(rows, key=lambda r: r["throughput_x"])
    print(f"{card} {setting}: {max((r['sessions'] for r in held), default=0)} sessions at zero stall, p95 <= "
          f"{limit * 1000:.0f} ms; peak {best['throughput_x']:.1f} audio-s/s at {best['sessions']} sessions "
          f"(aggregate rtf {best['aggregate_rtf']:.4f})")
EOF

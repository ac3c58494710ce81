#!/usr/bin/env bash
# MixPlan on every workload of the research's Table 4.3 (synthesised from the shipped
# statistics files): the best plan, its cost, and its saving against each device type
# alone, under the settings given as arguments (e.g. --cooling-factor 1, --probe-depth 8).
# Usage: scripts/reproduce-hybridstore.sh [tierlab plan flags...]
set -euo pipefail
cd "$(dirname "$0")/.."
tierlab=${TIERLAB:-target/release/tierlab}
[ -x "$tierlab" ] || cargo build --release --features highs
rows=(financial tpch usr proj print hm resproj proxy src1 src2 webstg term websql media webdev)
printf '%-10s %-36s %10s %12s %12s %12s\n' workload "best plan" "total $" "vs high-end" "vs low-end" "vs SSD-only"
for w in "${rows[@]}"; do
  "$tierlab" plan --stats "hybridstore-t4.3-$w" --json "$@" | python3 -c '
import json, sys
r = json.load(sys.stdin)
best = r["study"]["best"]
plan = " + ".join("%d %s" % (t["count"], t["device"]) for t in best["types"] if t["count"])
saving = {o["device"]: o["saving_percent"] for o in r["study"]["single_type"]}
fmt = lambda v: "-" if v is None else "%.1f %%" % v
print("%-10s %-36s %10.2f %12s %12s %12s" % (sys.argv[1], plan, best["total_usd"], fmt(saving.get("cheetah-15k5")), fmt(saving.get("samsung-green-1tb")), fmt(saving.get("x25m"))))
' "$w"
done

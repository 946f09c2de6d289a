#!/usr/bin/env bash
# Stop what slurm-up.sh started (by PID), and put back any slurm.conf it set aside.
set -uo pipefail

STATE=${SLURM_TEST_STATE:-/tmp/collectives-slurm}
CONF=/etc/slurm/slurm.conf

for daemon in slurmd slurmctld munged; do
  pidfile="$STATE/run/$daemon.pid"
  [ -s "$pidfile" ] || continue
  pid=$(cat "$pidfile")
  kill "$pid" 2>/dev/null || continue
  for _ in $(seq 20); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  kill -9 "$pid" 2>/dev/null || true
done
if [ -e "$STATE/slurm.conf.saved" ]; then
  mv -f "$STATE/slurm.conf.saved" "$CONF"
else
  rm -f "$CONF"
fi
rm -rf "$STATE"
echo "slurm-down: stopped" >&2

#!/usr/bin/env bash
# Start a real one-node SLURM on this machine, for the cluster tests (needs root).
#
# Installs Debian's slurmctld, slurmd, slurm-client and munge if missing, writes a one-node
# /etc/slurm/slurm.conf on 127.0.0.1 (the plugin's job steps drop SLURM_CONF, so the file
# must be at the default path; an existing one is kept aside and restored by
# slurm-down.sh), starts munged, slurmctld and slurmd in the background and waits until the
# node is idle. State, logs and PID files go to $SLURM_TEST_STATE (default
# /tmp/collectives-slurm). Exit status 0 when the node is up; 2 when this machine cannot
# run it (not root, no apt): callers skip then.
set -euo pipefail

STATE=${SLURM_TEST_STATE:-/tmp/collectives-slurm}
CONF=/etc/slurm/slurm.conf

if [ "$(id -u)" -ne 0 ]; then
  echo "slurm-up: needs root (to install packages and run slurmd)" >&2
  exit 2
fi
if [ ! -c /dev/null ]; then  # some containers ship a plain file: daemons cannot open it
  rm -f /dev/null && mknod -m 0666 /dev/null c 1 3
fi
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null \
  || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  if ! command -v apt-get >/dev/null; then
    echo "slurm-up: SLURM is not installed and there is no apt-get" >&2
    exit 2
  fi
  echo "slurm-up: installing slurmctld slurmd slurm-client munge" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null 2>&1 || true  # a stale mirror need not stop the install
  if ! apt-get install -y -qq slurmctld slurmd slurm-client munge >/dev/null; then
    echo "slurm-up: apt-get could not install SLURM" >&2
    exit 2
  fi
fi

# A fresh cluster every time: daemons of an earlier start stopped, no jobs or node state.
if [ -d "$STATE/run" ]; then
  "$(dirname "$0")/slurm-down.sh"
fi
mkdir -p "$STATE"/{ctld,slurmd,log,run} /run/munge /etc/slurm
if [ ! -s /etc/munge/munge.key ]; then
  dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key status=none
fi
chown munge:munge /etc/munge/munge.key /run/munge
chmod 0400 /etc/munge/munge.key

if [ -e "$CONF" ] && ! grep -q "written by tests/cluster/slurm-up.sh" "$CONF"; then
  cp -p "$CONF" "$STATE/slurm.conf.saved"
fi
CPUS=$(nproc)
MEMORY_MB=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 1024 ))
cat > "$CONF" <<CONF
# One-node test cluster written by tests/cluster/slurm-up.sh; removed by slurm-down.sh.
ClusterName=collectives-test
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
# Finished jobs stay visible to squeue, the plugin's status command without accounting.
MinJobAge=3600
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/slurmd
SlurmctldPidFile=$STATE/run/slurmctld.pid
SlurmdPidFile=$STATE/run/slurmd.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd.log
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEMORY_MB State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF

if ! pgrep -x munged >/dev/null; then  # a system munged serves as well
  runuser -u munge -- munged --pid-file=/run/munge/munged.pid
  cp /run/munge/munged.pid "$STATE/run/munged.pid"
fi
slurmctld -c
slurmd -N localhost

for _ in $(seq 60); do
  if [ "$(sinfo -h -n localhost -o %t 2>/dev/null)" = "idle" ]; then
    echo "slurm-up: node localhost idle ($CPUS CPUs, $MEMORY_MB MB), state in $STATE" >&2
    exit 0
  fi
  sleep 1
done
echo "slurm-up: the node did not become idle in 60 s; logs in $STATE/log" >&2
sinfo -N -l >&2 || true
exit 1

# tests/slurm/cluster.sh — a single-node Slurm for the tests and the benchmark, sourced:
#
#   . tests/slurm/cluster.sh
#   slurm_need || exit 0       # skips (saying which packages) when Slurm is absent
#   slurm_start "$dir"         # munged, slurmctld, slurmd; SLURM_CONF exported
#   ...                        # sbatch, squeue, sacc ensemble --slurm
#   slurm_stop                 # jobs cancelled, daemons shut down, nothing left running
#
# Debian 12's slurm-wlm without systemd and without cgroups: munged runs as the munge user
# with a key, socket and logs of its own under the temporary directory; slurmctld -D and
# slurmd -D run in the background with one node at 127.0.0.1, process tracking by
# /proc (proctrack/linuxproc), no task plugin, no accounting, batch jobs scheduled at once
# (batch_sched_delay=0); state, spool and logs under the temporary directory, on ports
# of their own.  slurm_stop cancels the jobs first (a daemon shut down under running jobs
# leaves them behind), then shuts Slurm down, kills what is left by its pid, and stops
# munged.  Call it from a trap so that a failing test leaves nothing running.
SLURM_PACKAGES="slurmctld slurmd slurm-client munge"

# Whether Slurm's programs are here; as root, tests/deps.sh installs them when not.
slurm_need() {
	if command -v slurmctld >/dev/null && command -v slurmd >/dev/null &&
		command -v sbatch >/dev/null && command -v munged >/dev/null; then
		return 0
	fi
	if [ "$(id -u)" -eq 0 ] && [ -f tests/deps.sh ]; then
		sh tests/deps.sh >/dev/null && command -v slurmctld >/dev/null && return 0
	fi
	echo "slurm: skipped: Slurm is not installed (Debian packages: $SLURM_PACKAGES;" \
		"as root: sh tests/deps.sh, or apt-get install --no-install-recommends" \
		"$SLURM_PACKAGES)" >&2
	return 1
}

slurm_log() {
	for f in "$SLURM_DIR"/munge/munged.log "$SLURM_DIR"/slurmctld.log "$SLURM_DIR"/slurmd.log; do
		[ -f "$f" ] && { echo "---- $f" >&2; tail -n 20 "$f" >&2; }
	done
}

slurm_start() {
	SLURM_DIR=$1
	mkdir -p "$SLURM_DIR/munge" "$SLURM_DIR/state" "$SLURM_DIR/spool"
	chmod 755 "$SLURM_DIR"
	# munge's own checks want its directory and key owned by it and closed to others
	chown munge:munge "$SLURM_DIR/munge"
	chmod 700 "$SLURM_DIR/munge"
	dd if=/dev/urandom bs=1024 count=1 2>/dev/null >"$SLURM_DIR/munge/munge.key"
	chown munge:munge "$SLURM_DIR/munge/munge.key"
	chmod 400 "$SLURM_DIR/munge/munge.key"
	sock=$SLURM_DIR/munge/munge.socket
	# /tmp is writable by all (sticky): --force lets munged accept it
	if ! runuser -u munge -- munged --force --key-file="$SLURM_DIR/munge/munge.key" \
		--socket="$sock" --pid-file="$SLURM_DIR/munge/munged.pid" \
		--log-file="$SLURM_DIR/munge/munged.log" --seed-file="$SLURM_DIR/munge/munged.seed" \
		2>"$SLURM_DIR/munged.err"; then
		cat "$SLURM_DIR/munged.err" >&2
		return 1
	fi
	chmod 755 "$SLURM_DIR/munge"
	base=$((20000 + $$ % 20000))
	cat >"$SLURM_DIR/slurm.conf" <<EOF
ClusterName=sacctest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$SLURM_DIR/state
SlurmdSpoolDir=$SLURM_DIR/spool
SlurmctldPidFile=$SLURM_DIR/slurmctld.pid
SlurmdPidFile=$SLURM_DIR/slurmd.pid
SlurmctldLogFile=$SLURM_DIR/slurmctld.log
SlurmdLogFile=$SLURM_DIR/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
KillWait=5
MinJobAge=5
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
	export SLURM_CONF=$SLURM_DIR/slurm.conf
	slurmctld -D -c >"$SLURM_DIR/slurmctld.out" 2>&1 &
	SLURM_CTLD_PID=$!
	slurmd -D -N localhost >"$SLURM_DIR/slurmd.out" 2>&1 &
	SLURM_D_PID=$!
	n=0
	while [ $n -lt 150 ]; do
		state=$(sinfo -h -o %T 2>/dev/null)
		case $state in idle*|mixed*|allocated*) return 0 ;; esac
		sleep 0.1
		n=$((n + 1))
	done
	echo "slurm: the node did not come up (state '$state')" >&2
	slurm_log
	return 1
}

# Waits for pid to end, at most $2 tenths of a second; then kills it.
slurm_reap() {
	n=0
	while kill -0 "$1" 2>/dev/null && [ $n -lt "$2" ]; do
		sleep 0.1
		n=$((n + 1))
	done
	kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

slurm_stop() {
	[ -n "${SLURM_DIR:-}" ] || return 0
	if [ -n "${SLURM_CTLD_PID:-}" ] && kill -0 "$SLURM_CTLD_PID" 2>/dev/null; then
		scancel --user="$(id -un)" 2>/dev/null
		n=0
		while [ -n "$(squeue -h 2>/dev/null)" ] && [ $n -lt 100 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		scontrol shutdown 2>/dev/null
	fi
	[ -n "${SLURM_D_PID:-}" ] && slurm_reap "$SLURM_D_PID" 50
	[ -n "${SLURM_CTLD_PID:-}" ] && slurm_reap "$SLURM_CTLD_PID" 50
	# job steps slurmd started and left (none when the cancel worked)
	for f in "$SLURM_DIR"/spool/*.pid; do
		[ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
	done
	if [ -f "$SLURM_DIR/munge/munged.pid" ]; then
		pid=$(cat "$SLURM_DIR/munge/munged.pid")
		kill "$pid" 2>/dev/null && slurm_reap "$pid" 30
	fi
	rm -rf "$SLURM_DIR"
	SLURM_DIR=
	unset SLURM_CONF
}

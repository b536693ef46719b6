"""A single-node Slurm on this machine, for the tests: Debian's munged, slurmctld and slurmd on localhost, each
started in the foreground by the test and stopped by it, with a generated slurm.conf and every state, spool, log
and socket file in one temporary folder.

Nothing of the machine's own Slurm or munge is used or touched: the daemons run as the current user, on ports
the kernel chose free, with a munge key of their own; clients find the cluster by SLURM_CONF. Where the
scheduler is not installed the tests skip, except where AUTOGRADER_REQUIRE_SLURM=1 (.ci/run sets it after
installing slurm-wlm and munge): there it fails.
"""

from __future__ import annotations

import getpass
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

DAEMONS = ("munged", "mungekey", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol")
#: a name of our own for the cluster and its node, so that nothing here is mistaken for another Slurm
NODE = "agnode"


@dataclass(frozen=True)
class Cluster:
    folder: Path
    env: dict[str, str]

    def run(self, *command: str, cwd: Path | None = None, timeout: float = 60) -> str:
        done = subprocess.run(command, env=self.env, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                              check=False)
        assert done.returncode == 0, f"{' '.join(command)}: {done.stderr}{self.logs()}"
        return done.stdout

    def wait(self, jobs: list[str], timeout: float = 300) -> None:
        """Until none of `jobs` (or their array tasks) is pending or running."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.run("squeue", "-h", "-j", ",".join(jobs), "-o", "%i %T").strip():
                return
            time.sleep(0.5)
        raise AssertionError(f"jobs {jobs} still queued after {timeout} s: {self.run('squeue')}{self.logs()}")

    def logs(self) -> str:
        return _logs(self.folder)


def require() -> None:
    missing = [name for name in DAEMONS if shutil.which(name) is None and not Path("/usr/sbin", name).exists()]
    if missing:
        if os.environ.get("AUTOGRADER_REQUIRE_SLURM") == "1":
            pytest.fail(f"AUTOGRADER_REQUIRE_SLURM=1 but {', '.join(missing)} missing (.ci/run installs slurm-wlm "
                        f"and munge)")
        pytest.skip(f"needs Debian's slurm-wlm and munge ({', '.join(missing)} missing)")


def _tool(name: str) -> str:
    return shutil.which(name) or str(Path("/usr/sbin") / name)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def slurm_conf(folder: Path, user: str, munge_socket: Path, cpus: int) -> str:
    ctld, slurmd = _free_port(), _free_port()
    return "\n".join([
        f"ClusterName=ag{os.getpid()}",
        # slurmctld runs only on the host it is configured for: this one, by its short name
        f"SlurmctldHost={socket.gethostname().split('.')[0]}(127.0.0.1)",
        "MailProg=/bin/true",
        f"SlurmctldPort={ctld}",
        f"SlurmdPort={slurmd}",
        f"SlurmUser={user}",
        f"SlurmdUser={user}",
        "AuthType=auth/munge",
        "CredType=cred/munge",
        f"AuthInfo=socket={munge_socket}",
        f"StateSaveLocation={folder / 'state'}",
        f"SlurmdSpoolDir={folder / 'spool'}",
        f"SlurmctldPidFile={folder / 'slurmctld.pid'}",
        f"SlurmdPidFile={folder / 'slurmd.pid'}",
        f"SlurmctldLogFile={folder / 'slurmctld.log'}",
        f"SlurmdLogFile={folder / 'slurmd.log'}",
        "SlurmctldDebug=info",
        "SlurmdDebug=info",
        # no cgroups, no accounting database: what a single machine in a test can have
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "JobAcctGatherType=jobacct_gather/none",
        "AccountingStorageType=accounting_storage/none",
        "MpiDefault=none",
        "SchedulerType=sched/builtin",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_CPU",
        "ReturnToService=2",
        "SlurmdParameters=config_overrides",
        f"NodeName={NODE} NodeHostname=localhost NodeAddr=127.0.0.1 CPUs={cpus} RealMemory=2048 State=UNKNOWN",
        f"PartitionName=debug Nodes={NODE} Default=YES MaxTime=INFINITE State=UP",
        "",
    ])


@contextmanager
def single_node(folder: Path, cpus: int = 2) -> Iterator[Cluster]:
    """munged, slurmctld and slurmd for one node, up until the block ends; then stopped, each by its pid."""
    require()
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o700)
    for sub in ("state", "spool", "munge"):
        (folder / sub).mkdir(mode=0o700, exist_ok=True)
    user = getpass.getuser()
    munge = folder / "munge"
    key = munge / "munge.key"
    subprocess.run([_tool("mungekey"), "--create", f"--keyfile={key}"], check=True, capture_output=True)
    key.chmod(0o400)
    munge_socket = munge / "munge.socket"
    conf = folder / "slurm.conf"
    conf.write_text(slurm_conf(folder, user, munge_socket, cpus))
    env = {**os.environ, "SLURM_CONF": str(conf)}
    for name in list(env):
        if name.startswith(("SLURM_", "SBATCH_", "SALLOC_", "SRUN_")) and name != "SLURM_CONF":
            del env[name]  # this process's own job, if it runs in one, is not the test's
    started: list[subprocess.Popen[bytes]] = []
    try:
        started.append(subprocess.Popen(
            [_tool("munged"), "--foreground", "--force", f"--socket={munge_socket}", f"--key-file={key}",
             f"--pid-file={munge / 'munged.pid'}", f"--seed-file={munge / 'munged.seed'}",
             f"--log-file={folder / 'munged.log'}"], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT))
        _until(lambda: munge_socket.exists(), "munged's socket", folder)
        started.append(subprocess.Popen([_tool("slurmctld"), "-D", "-i", "-f", str(conf)], env=env,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT))
        cluster = Cluster(folder, env)
        _until(lambda: _answers(env, "scontrol", "ping"), "slurmctld", folder)
        started.append(subprocess.Popen([_tool("slurmd"), "-D", "-N", NODE, "-f", str(conf)], env=env,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT))
        _until(lambda: "idle" in _output(env, "sinfo", "-h", "-o", "%t"), "slurmd (the node idle)", folder)
        yield cluster
    finally:
        for process in reversed(started):
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _answers(env: dict[str, str], *command: str) -> bool:
    return subprocess.run(command, env=env, capture_output=True, check=False, timeout=30).returncode == 0


def _output(env: dict[str, str], *command: str) -> str:
    return subprocess.run(command, env=env, capture_output=True, text=True, check=False, timeout=30).stdout


def _until(ready: Callable[[], bool], what: str, folder: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ready():
            return
        time.sleep(0.2)
    raise AssertionError(f"{what} did not come up within {timeout} s{_logs(folder)}")


def _logs(folder: Path) -> str:
    """The end of each daemon's log, for a failure's message."""
    return "".join(f"\n--- {p.name}\n{p.read_text(errors='replace')[-3000:]}" for p in sorted(folder.glob("*.log")))

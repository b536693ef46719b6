"""Confinement that holds in landlock mode as root without capabilities, and limits that hold for a run as a
whole (docs/security.md), each attack set up for real on this machine's kernel."""

from __future__ import annotations

import ctypes
import errno
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml

from grader.core.exercise import Exercise, Probe, SourceRules
from grader.core.numeric import CUDA_TOLERANCE, DEFAULT_TOLERANCE
from grader.core.values import Number, Seq, Text
from grader.run.confine import cgroups, isolate, landlock, seccomp
from grader.run.observed import RunResult
from grader.run.read.load import SourceCell, Submission
from grader.run.sandbox import Group, Sandbox

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "submissions" / "hostile"
ROOTED = pytest.mark.skipif(os.geteuid() != 0, reason="the modes under test are root's")
LANDLOCK = pytest.mark.skipif(landlock.abi() == 0, reason="this kernel has no Landlock")
#: the hostile samples whose attack is on landlock mode as root, each with the most it may score
LANDLOCK_ATTACKS = ("plants_the_next_scratch", "sigio_kills_the_batch", "reaches_host_sockets", "limits_its_zygote",
                    "changes_files_it_reads", "kills_its_parent", "loads_bytecode_it_made_read_only")


def _exercise(engine: str, memory_mb: int = 512) -> Exercise:
    probe = Probe(name="only", about="", points=1, visibility="public", partial=False, inputs=(), code="out = f(2)",
                  observe=(("out", "out"),), output=None, gradients=(), tolerance=DEFAULT_TOLERANCE,
                  cuda_tolerance=CUDA_TOLERANCE, devices=("cpu",), raises=None, printed=(), line=1)
    return Exercise(id="demo", title="demo", summary="", points=1, engine=engine, defines=(("f", "function"),),
                    folder=Path("."), spec_path=Path("exercise.yaml"), starter=Path("s.py"), solution=Path("s.py"),
                    expected=None, mutants=(), time_limit=10, memory_mb=memory_mb, source=SourceRules(),
                    probes=(probe,))


def _run(sandbox: Sandbox, source: str, exercise: Exercise) -> RunResult:
    submission = Submission(path=Path("student.py"), name="student.py", kind="python",
                            cells=(SourceCell("student.py", source),), sha256="0" * 64, declared_exercise=None,
                            declared_assignment=None)
    return sandbox.launch(submission, [Group(exercise, ({},), 0)], time_limit=10).result()


def _out(result: RunResult) -> object:
    probe = result.groups[0].probes[0]
    return probe.observations["out"] if probe is not None and probe.observations else result.stop


ATTACKS = """\
import fcntl, os, resource, signal, socket
refused = []
def attempt(name, act):
    try:
        act()
    except OSError:
        refused.append(name)
def host_socket():
    with socket.socket(socket.AF_UNIX) as s:
        s.connect({socket!r})
def sigio():
    r, w = os.pipe()
    fcntl.fcntl(r, fcntl.F_SETOWN, os.getppid())
    fcntl.fcntl(r, 10, signal.SIGKILL)
    fcntl.fcntl(r, fcntl.F_SETFL, os.O_ASYNC)
    os.write(w, b"x")
attempt("socket", host_socket)
attempt("sigio", sigio)
attempt("chmod", lambda: os.chmod({victim!r}, 0o600))
attempt("utime", lambda: os.utime({victim!r}, (0, 0)))
attempt("prlimit", lambda: resource.prlimit(os.getppid(), resource.RLIMIT_NOFILE, (3, 3)))
attempt("kill", lambda: os.kill(os.getppid(), 0))
attempt("scratch", lambda: os.mkdir(os.path.join(os.path.dirname(os.getcwd()), "run-planted")))
attempt("shadow", lambda: open("/etc/shadow", "rb").read(1))  # root's own, closed to others
attempt("setuid", lambda: os.close(os.open("suid", os.O_CREAT | os.O_WRONLY, 0o4755)))  # root's, set-uid
attempt("own folder", lambda: open("mine.txt", "w").close())
def f(x):
    return refused
"""


@ROOTED
@LANDLOCK
def test_a_landlocked_run_as_root_reaches_no_host_socket_file_or_process(tmp_path: Path) -> None:
    # Where runs keep root for files (this machine's interpreter is under /root), the kernel's checks
    # between processes still see a uid of the run's own, and seccomp refuses what ownership would allow.
    server = socket.socket(socket.AF_UNIX)
    path = tmp_path / "root-only.sock"
    server.bind(str(path))
    os.chmod(path, 0o600)
    server.listen(8)
    accepted: list[int] = []
    threading.Thread(target=lambda: accepted.append(server.accept()[0].fileno()), daemon=True).start()
    victim = tmp_path / "victim.txt"
    victim.write_text("x")
    before = victim.stat()
    exercise = _exercise("torch")
    with Sandbox(mode=isolate.Mode("landlock")) as box:
        first = _run(box, ATTACKS.format(socket=str(path), victim=str(victim)), exercise)
        after = _run(box, "def f(x):\n    return x + 1\n", exercise)  # the same zygote, still whole
    server.close()
    assert first.stop is None and _out(first) == Seq(tuple(Text(t) for t in (
        "socket", "sigio", "chmod", "utime", "prlimit", "kill", "scratch", "shadow", "setuid")))
    assert _out(after) == Number(3.0) and accepted == []
    assert (victim.stat().st_mode, victim.stat().st_mtime_ns) == (before.st_mode, before.st_mtime_ns)
    assert first.isolation is not None and "a user of its own for every run" in first.isolation.description


def test_the_landlock_filter_refuses_what_reaches_other_processes_and_files_owners_may_change() -> None:
    if seccomp.syscalls.ARCH != "x86_64":
        pytest.skip("the raw syscall numbers below are x86_64's")
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child's side
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        ok = seccomp.install(seccomp.confined_child_rules())

        def refused(number: int, *args: int) -> bool:
            ctypes.set_errno(0)
            return libc.syscall(number, *(ctypes.c_long(a) for a in args)) == -1 and ctypes.get_errno() in (
                errno.EPERM, errno.EACCES, errno.ENOSYS)

        parent = os.getppid()
        checks = [refused(438, 3, 0, 0),  # pidfd_getfd
                  refused(29, 0, 4096, 0o1600), refused(68, 0, 0o1600),  # shmget, msgget
                  refused(302, parent, 7, 0, 0),  # prlimit64 on another process
                  refused(141, 0, parent, 19),  # setpriority
                  refused(72, 0, 8, parent), refused(72, 0, 10, 9),  # fcntl F_SETOWN, F_SETSIG
                  refused(16, 0, 0x8901, 0),  # ioctl FIOSETOWN
                  refused(41, socket.AF_UNIX, socket.SOCK_STREAM, 0),  # socket
                  refused(91, 0, 0o644), refused(280, -100, 0, 0, 0)]  # fchmod, utimensat
        allowed = [len(socket.socketpair()) == 2,  # a pair reaches nothing else
                   not refused(72, 0, 3), not refused(302, 0, 7, 0, 0)]  # F_GETFL; its own limits
        os._exit(0 if ok and all(checks) and all(allowed) else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


@pytest.mark.slow
@ROOTED
@LANDLOCK
def test_in_landlock_mode_as_root_a_batch_keeps_every_classmate_whole(tmp_path: Path) -> None:
    # The batch runs as a default Docker container would (no namespaces, no CAP_SYS_ADMIN), with the
    # virtual environment under /tmp (CI clones there): the attacks on that mode first, then every
    # exercise's solution, in one worker, so each attack meets the zygotes its classmates are graded by.
    if not (shutil.which("unshare") and shutil.which("setpriv")) or sys.prefix == sys.base_prefix:
        pytest.skip("needs unshare and setpriv (util-linux) and a virtual environment")
    folder = tmp_path / "class"
    folder.mkdir()
    for name in LANDLOCK_ATTACKS:
        shutil.copy(HOSTILE / f"{name}.py", folder / f"a_{name}.py")
    solutions = {p.parent.name: p for p in (ROOT / "exercises").glob("*/solution.py")}
    for exercise, solution in solutions.items():
        shutil.copy(solution, folder / f"z_{exercise}.py")
    venv = sys.prefix if sys.prefix.startswith("/tmp/") else str(tmp_path / "venv")
    docker_like = ("import os, sys; from grader.run.confine import seccomp; "
                   "assert seccomp.install(seccomp.no_namespaces_rules(landlock=True)); "
                   "os.execvp(sys.argv[1], sys.argv[1:])")
    python = f"{venv}/bin/python"
    script = ("set -e; " + (f"mkdir -p {venv}; mount --bind {sys.prefix} {venv}; " if venv != sys.prefix else "")
              + f'exec {python} -c "$0" setpriv --bounding-set=-sys_admin {python} -m grader batch "$1" '
                '--out "$2" -j 1')
    out = tmp_path / "reports"
    done = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script, docker_like, str(folder),
                           str(out)], capture_output=True, text=True, cwd=ROOT, timeout=900, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    reports = {p.parent.name: json.loads(p.read_text()) for p in (out / "students").glob("*/report.json")}
    for name in LANDLOCK_ATTACKS:
        expect = yaml.safe_load((HOSTILE / f"{name}.expect.yaml").read_text())
        assert reports[f"a_{name}"]["score"] == expect["score"], name
    assert {e: reports[f"z_{e}"]["score"] for e in solutions} == {e: reports[f"z_{e}"]["max_score"] for e in solutions}
    isolation = reports["z_custom-sigmoid"]["isolation"]
    assert isolation["level"] == "landlock" and "a user of its own for every run" in isolation["description"]


def _memory_hog(children: int, megabytes: int) -> str:
    return ("import os, time\n"
            f"kids = []\nfor _ in range({children}):\n    pid = os.fork()\n    if pid == 0:\n"
            f"        hoard = [bytearray(2**20) for _ in range({megabytes})]\n        time.sleep(30)\n"
            "        os._exit(0)\n    kids.append(pid)\nfor pid in kids:\n    os.waitpid(pid, 0)\n"
            "def f(x):\n    return x\n")


@ROOTED
def test_a_run_whose_processes_together_exceed_its_memory_is_stopped_and_told_why() -> None:
    place = cgroups.place()
    if "memory" in place.weaker:
        pytest.skip(f"no memory cgroup can be had here ({place.why})")
    exercise = _exercise("scalar", memory_mb=256)

    def groups() -> set[str]:
        return {e for h in place.hierarchies for e in os.listdir(h.parent) if e.startswith("zygote-")}

    before = groups()  # other tests' sandboxes, still open
    with Sandbox(lean=True) as box:  # each of 8 processes holds 100 MB, far below its own limit
        hog = _run(box, _memory_hog(8, 100), exercise)
        honest = _run(box, "def f(x):\n    return x\n", exercise)
    assert hog.stop is not None and hog.stop.kind == "memory"
    assert "the processes it started used more than its memory limit (256 MB)" in hog.stop.text
    assert _out(honest) == Number(2.0) and honest.isolation is not None and honest.isolation.weaker_limits == ()
    assert "memory and processes counted for the run as a whole" in honest.isolation.description
    deadline = time.monotonic() + 10
    while (left := groups() - before) and time.monotonic() < deadline:  # a killed zygote's processes leave
        cgroups.sweep_removals()  # its groups as they are reaped
        time.sleep(0.05)
    assert left == set()  # the zygotes' groups go with them


def test_without_a_cgroup_every_report_says_which_limits_held_per_process_only() -> None:
    exercise = _exercise("scalar")
    with Sandbox(lean=True, mode=isolate.Mode(isolate.best_mode().kind, run_cgroups=False)) as box:
        result = _run(box, "def f(x):\n    return x\n", exercise)
    assert result.isolation is not None and result.isolation.weaker_limits == ("memory", "processes")
    assert "memory limited per process only" in result.isolation.description



@ROOTED
@pytest.mark.parametrize("kind", ["root-namespaces", "user-namespaces"])
def test_a_run_leaves_nothing_in_the_tree_for_the_runs_after_it(kind: str) -> None:
    # Where runs are the grader's own user (user-namespaces), they own the tree's tmpfs: its root and the
    # covers over site-packages were writable, and what one run left there the next ones found.
    from grader.run.confine import tree
    from grader.run.policy import engine_policy

    folders = ["/", *tree.layout(engine_policy()).covers]
    code = ("import sys\nos = sys.modules['os']\nleft = []\n"
            f"for folder in {folders!r}:\n    try:\n"
            "        open(os.path.join(folder, 'for-the-next-run'), 'w').close()\n        left.append(folder)\n"
            "    except OSError:\n        pass\ndef f(x):\n    return left\n")
    with Sandbox(lean=True, mode=isolate.Mode(kind)) as box:  # type: ignore[arg-type]
        result = _run(box, code, _exercise("scalar"))
    assert _out(result) == Seq(())

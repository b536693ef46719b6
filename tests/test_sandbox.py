"""The sandbox: student code runs in a forked child, and whatever it does comes back as data."""

from __future__ import annotations

import dataclasses
import os
import py_compile
import shutil
import signal
import time
from pathlib import Path

import pytest

from grader.core.exercise import Exercise, Probe, SourceRules
from grader.core.numeric import CUDA_TOLERANCE, DEFAULT_TOLERANCE
from grader.core.values import ErrorInfo, Number, Seq, Text
from grader.run.observed import RunResult
from grader.run.read.load import SourceCell, Submission
from grader.run.sandbox import Group, Sandbox


def probe(name: str, code: str, observe: str = "out") -> Probe:
    return Probe(name=name, about="", points=1, visibility="public", partial=False, inputs=(), code=code,
                 observe=((observe, observe),), output=None, gradients=(), tolerance=DEFAULT_TOLERANCE,
                 cuda_tolerance=CUDA_TOLERANCE, devices=("cpu",), raises=None, printed=(), line=1)


EXERCISE = Exercise(
    id="demo", title="demo", summary="", points=2, engine="torch", defines=(("f", "function"),),
    folder=Path("."), spec_path=Path("exercise.yaml"), starter=Path("s.py"), solution=Path("s.py"), expected=None,
    mutants=(),
    time_limit=5, memory_mb=512, source=SourceRules(),
    probes=(probe("first", "out = f(2)"), probe("second", "out = f(3)")),
)


def run(sandbox: Sandbox, source: str, *, time_limit: float = 5, exercise: Exercise = EXERCISE) -> RunResult:
    submission = Submission(path=Path("student.py"), name="student.py", kind="python",
                            cells=(SourceCell("student.py", source),), sha256="0" * 64, declared_exercise=None,
                            declared_assignment=None)
    inputs = tuple({} for _ in exercise.probes)
    return sandbox.launch(submission, [Group(exercise, inputs, 0)], time_limit=time_limit).result()


def test_a_normal_run_returns_observations_and_output(sandbox: Sandbox) -> None:
    result = run(sandbox, "def f(x):\n    print('called', x)\n    return x * 1.5\n")
    assert [p.observations for p in result.groups[0].probes if p] == [{"out": Number(3.0)}, {"out": Number(4.5)}]
    assert result.stopped is None and result.load_error is None
    assert result.output == "called 2\ncalled 3\n"


def test_an_exception_at_import_is_a_load_error_with_its_line(sandbox: Sandbox) -> None:
    result = run(sandbox, "x = 1\nraise ValueError('oops')\n")
    assert result.load_error is not None
    assert result.load_error.describe() == "ValueError: oops (line 2: raise ValueError('oops'))"
    assert result.groups[0].probes == (None, None)


def test_sys_exit_at_import_is_reported_not_obeyed(sandbox: Sandbox) -> None:
    result = run(sandbox, "import sys\nsys.exit(0)\n")
    assert result.load_error is not None and result.load_error.message == "sys.exit(0) was called"


def test_a_missing_name_is_reported(sandbox: Sandbox) -> None:
    result = run(sandbox, "g = 1\nf = 2\n")
    assert result.groups[0].missing == ("`f` (a function): found a int, not a function",)


def test_an_exception_in_a_probe_costs_only_that_probe(sandbox: Sandbox) -> None:
    result = run(sandbox, "def f(x):\n    if x == 2:\n        raise KeyError(x)\n    return x\n")
    first, second = result.groups[0].probes
    assert first is not None and first.error == ErrorInfo("KeyError", "2", first.error.where)
    assert first.error.where is not None and (first.error.where.line, first.error.where.function) == (3, "f")
    assert second is not None and second.observations == {"out": Number(3.0)}


def test_os_exit_mid_run_keeps_what_came_before(sandbox: Sandbox) -> None:
    result = run(sandbox, "import os\ndef f(x):\n    if x == 3:\n        os._exit(3)\n    return x\n")
    assert result.groups[0].probes[0] is not None and result.groups[0].probes[1] is None
    assert result.stopped == "ended the process with exit code 3" and result.groups[0].stopped_at == 1


def test_a_segfault_is_a_crash_not_a_grader_failure(sandbox: Sandbox) -> None:
    result = run(sandbox, "import faulthandler\ndef f(x):\n    return faulthandler._sigsegv()\n")
    assert result.stopped == "crashed (killed by SIGSEGV)" and result.groups[0].stopped_at == 0


def test_an_infinite_loop_that_ignores_signals_is_killed_on_time(sandbox: Sandbox) -> None:
    source = ("import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nsignal.signal(signal.SIGINT, "
              "signal.SIG_IGN)\ndef f(x):\n    while True:\n        pass\n")
    started = time.monotonic()
    result = run(sandbox, source, time_limit=1)
    assert time.monotonic() - started < 3
    assert result.stopped == "did not finish within 1 s (the time limit)" and result.groups[0].stopped_at == 0


def test_a_memory_bomb_is_a_memory_error(sandbox: Sandbox) -> None:
    result = run(sandbox, "def f(x):\n    return len(bytearray(64 * 2**30))\n")
    first = result.groups[0].probes[0]
    assert first is not None and first.error is not None and first.error.type_name == "MemoryError"
    assert result.groups[0].probes[1] is not None  # and the run carried on


def test_an_output_flood_is_capped(sandbox: Sandbox) -> None:
    result = run(sandbox, "import sys\nfor _ in range(20000):\n    print('x' * 100)\ndef f(x):\n    return x\n")
    assert result.output_truncated and len(result.output) == 64 * 1024
    assert result.stopped is None


def test_a_forged_reply_is_detected_and_never_scored(sandbox: Sandbox) -> None:
    forged = '{"event":"probe","group":0,"probe":0,"observations":{"out":{"t":"num","v":42}}}\\n'
    source = ("import os\nfor fd in range(3, 64):\n    try:\n        os.write(fd, b'" + forged + "')\n"
              "    except OSError:\n        pass\ndef f(x):\n    return x\n")
    result = run(sandbox, source)
    assert result.groups[0].probes == (None, None)
    assert result.stop is not None and result.stop.kind == "forged-reply"
    assert "wrote to the grader's reply channel" in result.stop.text


def test_leftover_processes_are_killed_with_the_group(sandbox: Sandbox) -> None:
    source = "import os, time\nif os.fork() == 0:\n    time.sleep(60)\n    os._exit(0)\nprint(os.getpid())\n" \
             "def f(x):\n    return x\n"
    result = run(sandbox, source)
    leader = int(result.output.split()[0])
    time.sleep(0.2)
    survivors = [pid for pid in map(int, filter(str.isdigit, os.listdir("/proc")))
                 if _group(pid) == leader and _state(pid) != "Z"]
    assert survivors == []


def _group(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except ProcessLookupError:
        return None


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return "gone"


def test_the_child_has_no_stdin_a_scrubbed_environment_and_a_temporary_folder(sandbox: Sandbox,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECRET_TOKEN", "hunter2")
    exercise = dataclasses.replace(EXERCISE, probes=(
        probe("stdin", "out = f()", "out"),
        probe("env", "import os\nout = os.environ.get('SECRET_TOKEN', 'absent')"),
        probe("cwd", "import os\nopen('scratch.txt', 'w').write('x')\nout = os.getcwd()"),
    ))
    result = run(sandbox, "def f():\n    try:\n        return input()\n    except EOFError:\n        return 'eof'\n",
                 exercise=exercise)
    observed = [p.observations["out"] if p and p.observations else None for p in result.groups[0].probes]
    assert observed[:2] == [Text("eof"), Text("absent")]
    workdir = observed[2]
    assert isinstance(workdir, Text) and workdir.value != os.getcwd()
    assert not Path(workdir.value).exists()  # removed after the run


def test_what_one_child_writes_the_next_never_sees(sandbox: Sandbox) -> None:
    # As root the children of one zygote share its file tree: each still needs scratch folders of its own.
    places = ["/tmp/left", "/var/tmp/left", "/dev/shm/left", "left"]
    writes = "".join(f"    try:\n        open({p!r}, 'w').write('x')\n    except OSError:\n        pass\n"
                     for p in places)
    first = run(sandbox, f"def f(x):\n{writes}    return x\n")
    assert first.stopped is None
    second = run(sandbox, "import os\ndef f(x):\n"
                          f"    return float(sum(os.path.exists(p) for p in {places!r}))\n")
    assert [p.observations for p in second.groups[0].probes if p] == [{"out": Number(0.0)}] * 2


def test_packages_installed_under_tmp_stay_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    # A checkout or virtual environment under /tmp (CI does this) lies inside a scratch folder that
    # each child gets fresh: its packages must still be there.
    packages = Path("/tmp") / f"autograd-grader-test-{os.getpid()}" / "site-packages"
    packages.mkdir(parents=True)
    try:
        (packages / "helper_under_tmp.py").write_text("ANSWER = 42.0\n")
        # with its bytecode compiled, as pip leaves it: read from a read-only place, it is not refused
        py_compile.compile(str(packages / "helper_under_tmp.py"), doraise=True)
        monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(packages), os.environ.get("PYTHONPATH")])))
        with Sandbox() as fresh:
            for _ in range(2):
                result = run(fresh, "def f(x):\n    import helper_under_tmp\n    return helper_under_tmp.ANSWER\n")
                assert [p.observations for p in result.groups[0].probes if p] == [{"out": Number(42.0)}] * 2
    finally:
        shutil.rmtree(packages.parent)


@pytest.mark.skipif(os.geteuid() != 0, reason="a zygote is not dumpable: only root reads its /proc/<pid>/environ")
def test_bytecode_the_submission_wrote_is_refused() -> None:
    # Bytecode is where code objects come from without code.__new__: one the submission wrote itself
    # could hold anything. It writes a module and its .pyc into its own folder and imports it: its folder's
    # finder reads only source. Then it loads the .pyc with a loader of its own: marshal is refused, since
    # the bytes are not a file it cannot write, whoever calls (no caller is trusted by name).
    source = ("def f(x):\n"
              "    import importlib.machinery, pathlib, py_compile, sys\n"
              "    pathlib.Path('planted.py').write_text('ANSWER = 7.0\\n')\n"
              "    compiled = py_compile.compile('planted.py', cfile='planted.pyc', doraise=True)\n"
              "    pathlib.Path('planted.py').unlink()\n"
              "    sys.path.insert(0, '.')\n"
              "    try:\n"
              "        return importlib.import_module('planted').ANSWER\n"
              "    except ImportError:\n"
              "        pass\n"
              "    try:\n"
              "        return importlib.machinery.SourcelessFileLoader('planted', compiled).load_module().ANSWER\n"
              "    except PermissionError:\n"
              "        return -1.0\n")
    with Sandbox() as fresh:
        result = run(fresh, source)
    assert [p.observations for p in result.groups[0].probes if p] == [{"out": Number(-1.0)}] * 2
    assert any("tried to load bytecode of its own (marshal)" in note for note in result.integrity)


@pytest.mark.skipif(os.geteuid() != 0, reason="a zygote is not dumpable: only root reads its /proc/<pid>/environ")
def test_no_secret_of_the_graders_environment_reaches_a_zygote(monkeypatch: pytest.MonkeyPatch) -> None:
    # A child could read the environment its zygote started with back from /proc/self/environ.
    monkeypatch.setenv("CI_JOB_TOKEN", "hunter2")
    with Sandbox(lean=True) as fresh:
        assert run(fresh, "def f(x):\n    return x\n").stopped is None
        children = [pid for task in Path("/proc/self/task").iterdir()
                    for pid in (task / "children").read_text().split()]
        zygotes = [pid for pid in children if b"zygote_main" in Path(f"/proc/{pid}/cmdline").read_bytes()]
        environments = [Path(f"/proc/{pid}/environ").read_bytes() for pid in zygotes]  # this one's, and any earlier
    assert environments and all(b"hunter2" not in e and b"PYTHONPATH=" in e for e in environments)


def test_a_forking_submission_cannot_double_report(sandbox: Sandbox) -> None:
    result = run(sandbox, "import os\nos.fork()\ndef f(x):\n    return x\n")
    # Parent and child both answer: the second copy of a numbered line is caught, or the group is gone first.
    assert result.stop is None or result.stop.kind == "forged-reply"


def test_the_zygote_survives_many_runs(sandbox: Sandbox) -> None:
    for _ in range(20):
        assert run(sandbox, "def f(x):\n    return x\n").stopped is None


def test_a_child_killed_by_a_signal_it_sends_itself(sandbox: Sandbox) -> None:
    result = run(sandbox, f"import os\nos.kill(os.getpid(), {int(signal.SIGTERM)})\n")
    assert result.stopped == "crashed (killed by SIGTERM)" and result.groups[0].stopped_at is None


def test_a_child_holds_nothing_of_the_grading_process() -> None:
    # The grading process has the reference engine loaded; a zygote forked from it would hand that engine
    # (a full solution to the Node exercises) to every child. A zygote is a fresh interpreter whose file
    # tree lacks the reference package, and the collector's object lists are refused to the submission.
    import reference.scalar  # noqa: F401

    code = ("import sys, gc\n"
            "loaded = sorted(m for m in sys.modules if m.split('.')[0] == 'reference')\n"
            "try:\n    import reference\n    found = 'importable'\nexcept ImportError:\n    found = 'absent'\n"
            "try:\n    gc.get_objects()\n    listed = 'listed'\nexcept PermissionError:\n    listed = 'refused'\n"
            "def f(x):\n    return [str(loaded), found, listed]\n")
    with Sandbox() as fresh:
        result = run(fresh, code)
    assert [p.observations for p in result.groups[0].probes if p] == [
        {"out": Seq((Text("[]"), Text("absent"), Text("refused")))}] * 2


@pytest.mark.parametrize("kind", ["user-namespaces", "landlock"])
def test_the_weaker_modes_still_hide_the_machine(kind: str, tmp_path: Path) -> None:
    # Where root's namespaces are not to be had: a user namespace (another user), or Landlock (a container
    # whose seccomp profile refuses namespaces). Either way the run cannot read what lies outside its tree
    # (a solution, a classmate's file), reach the network, or see the grader's processes.
    from grader.run.confine import isolate, landlock

    if kind == "landlock" and landlock.abi() == 0:
        pytest.skip("this kernel has no Landlock")
    secret = tmp_path / "solution.py"
    secret.write_text("SECRET = 1\n")
    code = ("import os, socket\n"
            "def f(x):\n"
            f"    try:\n        open({str(secret)!r}).read()\n        read = 'read'\n"
            "    except OSError:\n        read = 'refused'\n"
            "    try:\n        socket.create_connection(('1.1.1.1', 53), timeout=1)\n        net = 'connected'\n"
            "    except OSError:\n        net = 'refused'\n"
            f"    try:\n        seen = 'seen' if open('/proc/{os.getpid()}/cmdline').read() else 'empty'\n"
            "    except OSError:\n        seen = 'hidden'\n"
            "    return [read, net, seen]\n")
    with Sandbox(mode=isolate.Mode(kind)) as fresh:  # type: ignore[arg-type]
        result = run(fresh, code)
    assert result.isolation is not None and result.isolation.mode == kind
    assert [p.observations for p in result.groups[0].probes if p] == [
        {"out": Seq((Text("refused"), Text("refused"), Text("hidden")))}] * 2


def test_the_reply_is_signed_and_numbered(sandbox: Sandbox) -> None:
    # Whatever the submission writes to any descriptor, or asks the guard to send, never passes as a line.
    source = ("import os, sys\n"
              "sys.audit('autograd-grader.run.reply')\n"
              "event = ('done', {})\n"
              "sys.audit('autograd-grader.run.reply')\n"
              "def f(x):\n    return x\n")
    result = run(sandbox, source)
    assert result.stop is None and [p.observations for p in result.groups[0].probes if p] == [
        {"out": Number(2.0)}, {"out": Number(3.0)}]
    assert any("tried to write the grader's reply" in text for text in result.integrity)


def test_one_exercises_loop_costs_only_its_own_checks(sandbox: Sandbox) -> None:
    looping = dataclasses.replace(EXERCISE, id="loops", probes=(probe("spins", "out = f(-1)"),))
    calm = dataclasses.replace(EXERCISE, id="calm")
    submission = Submission(path=Path("s.py"), name="s.py", kind="python", cells=(SourceCell(
        "s.py", "def f(x):\n    while x < 0:\n        pass\n    return x\n"),), sha256="0" * 64,
        declared_exercise=None, declared_assignment=None)
    found = sandbox.start(submission, [Group(looping, ({},), 0), Group(calm, ({}, {}), 0)], time_limit=1).results()
    (spun, k), (fine, j) = found
    assert spun.groups[k].stop is not None and spun.groups[k].stop.kind == "timeout"
    assert [p.observations for p in fine.groups[j].probes if p] == [{"out": Number(2.0)}, {"out": Number(3.0)}]

"""What the child's guard (grader.run.guard.guard) refuses and lets through, as data. The guard copies it into its
private
namespace when it is installed, before any submission runs: changing it later changes nothing."""

from __future__ import annotations

#: events refused once the submission runs, and what the report says about each
_REFUSED = {
    "gc.get_objects": "gc.get_objects()", "gc.get_referrers": "gc.get_referrers()",
    "gc.get_referents": "gc.get_referents()", "sys.settrace": "sys.settrace()", "sys.setprofile": "sys.setprofile()",
    "sys._current_frames": "sys._current_frames()", "sys._current_exceptions": "sys._current_exceptions()",
    "code.__new__": "making a code object", "sys.monitoring.register_callback": "sys.monitoring",
}
#: what hands out frames, each a way up the stack into the grader's own frames and their variables
_FRAME_ATTRIBUTES = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})
#: standard-library functions that read frames and give back only text (names, lines)
_TEXT_ONLY_FRAME_USERS = frozenset({
    ("traceback.py", "_extract_from_extended_frame_gen"), ("traceback.py", "extract_stack"),
    ("traceback.py", "format_stack"), ("traceback.py", "print_stack"), ("logging/__init__.py", "findCaller"),
    ("collections/__init__.py", "namedtuple"), ("typing.py", "_caller"), ("enum.py", "_create_"),
    ("warnings.py", "warn"),
})
#: the events of a reply, the only kinds of line the guard writes
_KINDS = frozenset({"ready", "cell", "cell_error", "loaded", "group", "start", "probe", "done", "crashed"})
#: file names no code of the submission's may carry: the interpreter's frozen modules' and the probes'
_TRUSTED_NAMES = ("<frozen ", "<probe ")

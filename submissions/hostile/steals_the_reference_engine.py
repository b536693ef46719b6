# exercise: node-mul
# Hostile: the grader has a complete Node (its reference engine); take it from memory or import it
import sys

# The allowlist refuses these modules; one who read the grader takes its finder off sys.meta_path and calls
# importlib's own machinery, which audits no import of a module built into the interpreter.
sys.meta_path[:] = [f for f in sys.meta_path if "grader" not in type(f).__module__]
_load = sys.modules["_frozen_importlib"]._gcd_import
gc = _load("gc")

Node = None
for module in list(sys.modules.values()):  # a warm parent forked with the engine loaded would have it here
    if getattr(module, "__name__", "").startswith("reference"):
        Node = getattr(module, "Node", None) or Node
for thing in gc.get_objects():  # or anywhere else in memory
    if isinstance(thing, type) and str(thing.__module__).startswith(("reference", "grader", "solution")) \
            and thing.__name__ == "Node":
        Node = thing
if Node is None:
    try:
        from reference.scalar import Node  # the package on disk, next to the grader's
    except ImportError as e:
        print("not found:", e)

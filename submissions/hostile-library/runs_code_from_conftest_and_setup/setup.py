# Hostile: pip install -e . would run this; the grader never reads it
import pathlib

pathlib.Path("/tmp/hostile-library-setup-ran").write_text("setup")
print("PWNED by setup.py")

# Hostile: pytest would run this first; the grader never reads it
import pathlib

pathlib.Path("/tmp/hostile-library-conftest-ran").write_text("conftest")
print("PWNED by conftest.py")

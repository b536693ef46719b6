# Hostile: the repository's root is on sys.path; Python imports sitecustomize only as it starts, before that
print("PWNED by sitecustomize.py")

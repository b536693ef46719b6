"""The LMS's side of a class: its bulk download read (`downloads`), its members
fetched over LTI NRPS (`nrps`) and a batch's scores sent over LTI AGS (`publish`).
May import core, outputs, itself, and of the course only the modules that say what a
class handed in and what its batch wrote (selection, manifest, classfiles, batch)."""

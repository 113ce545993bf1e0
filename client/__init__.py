"""The Panda3D client (arrives with the 3D client issue)."""

"""LAN play: discovery, secure sessions and lockstep (arrives with the network issue)."""

"""Learning from data: a deadlock network that guides search and the GA, levels from pictures."""

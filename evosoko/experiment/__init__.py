"""Running experiments: run folders, resumable runs over level sets, progress and plots."""

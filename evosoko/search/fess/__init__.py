"""The feature-space search (push-fess): its run (:mod:`.run`), its compiled kernel
(:mod:`.kernel`) and its feature space (:mod:`.space`)."""

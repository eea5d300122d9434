"""Monte Carlo tree search (``mcts``): its run (:mod:`.run`), the compiled kernel
(:mod:`.kernel`), the tree (:mod:`.tree`) and the rules it plays by, standard (:mod:`.rules`) or
given holes (:mod:`.holes`), chosen per variant by :mod:`.variants`."""

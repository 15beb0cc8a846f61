"""Token masks: which tokens of a vocabulary may come next in each state of an automaton."""

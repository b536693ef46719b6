"""The vocabulary every layer shares: errors, the
exercise model, tolerances, values and their comparison."""

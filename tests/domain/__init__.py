"""The domain: the aggregate (its copy, upcasts, replay), rule data, dice, the hash chain
and its verification, every event folded."""

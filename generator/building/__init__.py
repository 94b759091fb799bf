"""Building a dataset: the plan run by workers (in processes, shards or Ray), resumed after a kill,
merged from shards.
"""

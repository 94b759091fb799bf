"""What commands write: atomic files, the claimed output folder, the dataset card, Parquet shards
and the preview page.
"""

"""Generation: an instance drawn from a world, statements planned and made true or false, an item
worded.
"""

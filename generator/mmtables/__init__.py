"""``gen build mmtables``: multimodal tables (MMTabReal's), tables whose cells hold pictures,
generated with every visual attribute known and every answer computed by a program.

- :mod:`.names`: fictional entity names from a seeded syllable generator;
- :mod:`.domains`: the entity domains (clubs, countries, products, regions, people), their
  number columns and visual columns, and the tables of MMTabReal's eight archetypes;
- :mod:`.aspects`: what a question may ask of each visual kind, in the kind's own words;
- :mod:`.choices`: what a question may choose on a drawn table: conditions, readings, the
  parts of an answer, values planted in pictures;
- :mod:`.questions`: questions of MMTabReal's taxonomy, each a
  :mod:`hopvista.program.cells` program with its wording, by the answer types each asks;
- :mod:`.plan`: the seeded plan balancing archetypes, question, reasoning and answer types,
  and the closed answers (yes/no, counts);
- :mod:`.build`: the dataset kind and the build.
"""

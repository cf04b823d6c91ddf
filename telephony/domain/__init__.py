"""The pure domain: schemas, code dictionaries and media checks, with no web framework and no storage."""

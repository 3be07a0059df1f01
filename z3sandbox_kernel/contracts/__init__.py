"""The contracts: the types and tables the layers above share (limits, options, results, the vote,
the read-only view's lists, the payload files).  They import only ``protocol/`` (the wire's words:
messages, verdicts, roles) and each other, never a layer above."""

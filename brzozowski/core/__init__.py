"""The regex algebra: byte sets and classes, hash-consed terms, derivatives, and the pattern parser.

The lowest layer: it imports nothing of the package but `brzozowski.errors`.
"""

"""For agents: the MCP server (``mcp_server``, ``z3sandbox mcp``) and the repair loop (``repair``).

Host side, like ``host/``: nothing here runs in a sandboxed child.  ``mcp_server`` imports the
``mcp`` SDK (the ``[mcp]`` extra) only when it serves.
"""

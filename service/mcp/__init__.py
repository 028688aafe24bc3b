"""Loci for agents: the MCP server (stdio and streamable HTTP) and the tool table behind it
and `GET /v1/tools`. An adapter like the routes: every tool makes its route's domain call."""

from service.mcp.http import MCP_PATH, McpMount, mcp_route
from service.mcp.tools import TOOLS, Tool

__all__ = ["MCP_PATH", "TOOLS", "McpMount", "Tool", "mcp_route"]

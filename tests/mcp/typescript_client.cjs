// A client of the official TypeScript MCP SDK (what most hosts are built on): it
// connects to `skilldeck serve` over stdio or streamable HTTP and prints, as JSON,
// what it saw. Its SDK validates every reply against the protocol's schemas, and a
// tool's structured result against the tool's output schema.
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const {
  StreamableHTTPClientTransport,
} = require("@modelcontextprotocol/sdk/client/streamableHttp.js");

async function main() {
  const [mode, target, skill, script, ...command] = process.argv.slice(2);
  const transport =
    mode === "stdio"
      ? new StdioClientTransport({ command: target, args: command, env: process.env, stderr: "inherit" })
      : new StreamableHTTPClientTransport(new URL(target));
  const client = new Client({ name: "typescript-sdk-test", version: "1.0.0" }, { capabilities: {} });
  await client.connect(transport);
  const out = { server: client.getServerVersion(), capabilities: client.getServerCapabilities() };
  out.tools = (await client.listTools()).tools;
  out.resources = (await client.listResources()).resources;
  out.templates = (await client.listResourceTemplates()).resourceTemplates;
  out.prompts = (await client.listPrompts()).prompts;
  out.list = await client.callTool({ name: "skills_list", arguments: {} });
  out.search = await client.callTool({ name: "skills_search", arguments: { query: "greeting" } });
  out.load = await client.callTool({ name: "skills_load", arguments: { name: skill } });
  out.readFile = await client.callTool({
    name: "skills_read_file",
    arguments: { name: skill, path: "references/notes.md" },
  });
  out.outside = await client.callTool({
    name: "skills_read_file",
    arguments: { name: skill, path: "../../etc/passwd" },
  });
  out.resource = await client.readResource({ uri: `skill://${skill}/SKILL.md` });
  out.prompt = await client.getPrompt({ name: "skills_catalog", arguments: {} });
  out.completion = await client.complete({
    ref: { type: "ref/resource", uri: "skill://{skill}/{+path}" },
    argument: { name: "skill", value: skill.slice(0, 2) },
  });
  if (out.tools.some((t) => t.name === "skills_run_script")) {
    out.run = await client.callTool(
      { name: "skills_run_script", arguments: { name: skill, script, args: ["typescript"] } },
      undefined,
      { onprogress: () => {} },
    );
  }
  try {
    await client.readResource({ uri: "skill://no-such-skill/SKILL.md" });
  } catch (error) {
    out.missing = { code: error.code, message: error.message, data: error.data };
  }
  await client.close();
  process.stdout.write(JSON.stringify(out));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

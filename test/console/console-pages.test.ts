/**
 * The Console's pages as static files: the index at /console/ and for any page address
 * (a reload on /console/runs/42), assets by name, 404 problems for a missing asset or API
 * route, the security headers on all of them; a WF_CONSOLE_STATIC_DIR without a build
 * stops the start with the setting's name.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { startConsoleNode, type ConsoleNode } from "./support/console-node.ts";

const INDEX = "<!doctype html><title>console test build</title>";

void describe("console pages", () => {
  const dir = mkdtempSync(join(tmpdir(), "tf-pages-"));
  let node: ConsoleNode;
  before(async () => {
    mkdirSync(join(dir, "assets"));
    writeFileSync(join(dir, "index.html"), INDEX);
    writeFileSync(join(dir, "assets", "app-1.js"), "console.log(1)");
    node = await startConsoleNode("sqlite", { consoleStaticDir: dir });
  });
  after(async () => {
    await node.close();
    rmSync(dir, { recursive: true, force: true });
  });

  void it("serves the index for the root and every page address, and assets by name", async () => {
    for (const url of ["/console/", "/console/runs/42", "/console/inbox?x=1"]) {
      const r = await node.call({ method: "GET", url });
      assert.equal(r.statusCode, 200, url);
      assert.match(r.headers["content-type"] as string, /^text\/html/);
      assert.equal(r.body, INDEX, url);
      assert.match(r.headers["content-security-policy"] as string, /script-src 'self'/);
    }
    const asset = await node.call({ method: "GET", url: "/console/assets/app-1.js" });
    assert.equal(asset.statusCode, 200);
    assert.match(asset.headers["content-type"] as string, /javascript/);
  });

  void it("answers 404 problems for a missing asset, an API route and a POST to a page", async () => {
    for (const [method, url] of [
      ["GET", "/console/assets/missing.js"],
      ["GET", "/console/api/nothing"],
      ["POST", "/console/runs"],
    ] as const) {
      const r = await node.call({ method, url, headers: { origin: "http://console.test" } });
      assert.ok([403, 404].includes(r.statusCode), `${method} ${url}: ${r.statusCode}`);
      assert.match(r.headers["content-type"] as string, /problem\+json/, `${method} ${url}`);
      assert.notEqual(r.body, INDEX);
    }
  });

  void it("refuses to start when WF_CONSOLE_STATIC_DIR holds no build, naming the setting", async () => {
    const empty = mkdtempSync(join(tmpdir(), "tf-pages-empty-"));
    try {
      await assert.rejects(
        startConsoleNode("sqlite", { consoleStaticDir: empty }),
        /WF_CONSOLE_STATIC_DIR/,
      );
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

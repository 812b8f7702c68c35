/**
 * Each `taskflow` command has its own help, and a usage error says what is
 * missing and points to that command's help (issue 21, item 22: serve, worker,
 * keys, keys create, migrate and health all printed the global help, and
 * `definitions validate` without a file said only "bad usage").
 *
 * In process (runCli), as keys-args.test.ts: nothing here opens a database.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { runCli } from "../../src/cli/run-cli.ts";

async function cli(args: string[]) {
  let out = "";
  let err = "";
  const code = await runCli(
    args,
    { NODE_ENV: "production" },
    {
      out: (t) => (out += t),
      err: (t) => (err += t),
    },
  );
  return { code, out, err };
}

const globalHelp = (await cli(["--help"])).out;

void test("every command's --help is its own: its usage line, not the global help", async () => {
  const cases: [string[], RegExp, RegExp][] = [
    [["serve"], /^Usage: taskflow serve \[--workflows <module>\]/, /--console +also the Console/],
    [["console"], /^Usage: taskflow console /, /WF_CONSOLE_/],
    [["worker"], /^Usage: taskflow worker --workflows <module>/, /--workflows <m> +required/],
    [["migrate"], /^Usage: taskflow migrate \[--config <file>\]/, /pending migrations/],
    [["health"], /^Usage: taskflow health \[--ready\]/, /--ready +ask \/readyz/],
    [["keys"], /^Usage: taskflow keys <command>/, /rotate <id>/],
    [["keys", "create"], /^Usage: taskflow keys create --name <name>/, /--expires <when>/],
    [["keys", "list"], /^Usage: taskflow keys list/, /Never a key or its hash/],
    [["keys", "revoke"], /^Usage: taskflow keys revoke <id>/, /within 5 s/],
    [["keys", "rotate"], /^Usage: taskflow keys rotate <id>/, /lifetime length/],
    [["definitions", "validate"], /^Usage: taskflow definitions validate FILE/, /FILE:POINTER/],
    [["definitions", "publish"], /^Usage: taskflow definitions publish FILE/, /--actor <id>/],
    [["definitions", "diff"], /^Usage: taskflow definitions diff FILE_A FILE_B/, /KEY FROM TO/],
  ];
  for (const [words, usage, detail] of cases) {
    for (const args of [
      [...words, "--help"],
      [...words, "-h"],
      ["help", ...words],
    ]) {
      const r = await cli(args);
      const at = args.join(" ");
      assert.equal(r.code, 0, `${at}: ${r.err}`);
      assert.match(r.out, usage, at);
      assert.match(r.out, detail, at);
      assert.notEqual(r.out, globalHelp, at);
      assert.equal(r.err, "", at);
    }
  }
  // The index stays where it was.
  for (const args of [["--help"], ["help"], ["-h"]]) {
    assert.match((await cli(args)).out, /^Usage: taskflow <command>/);
  }
  assert.match(globalHelp, /help \[command\]/);
});

void test("help for what is no command: exit 2, naming it", async () => {
  for (const args of [
    ["frob", "--help"],
    ["help", "frob"],
    ["help", "__proto__"],
  ]) {
    const r = await cli(args);
    assert.equal(r.code, 2, args.join(" "));
    assert.match(r.err, /unknown command '(frob|__proto__)'/);
  }
  const r = await cli(["definitions", "help", "frob"]);
  assert.equal(r.code, 2);
  assert.match(r.err, /unknown definitions command 'frob'/);
});

void test("usage errors say what is missing and point to the command's own help", async () => {
  const cases: [string[], RegExp][] = [
    [["worker"], /worker needs --workflows <module>\. Run 'taskflow worker --help'/],
    [["migrate", "extra"], /unexpected argument 'extra'\. Run 'taskflow migrate --help'/],
    [["health", "--bogus"], /Unknown option '--bogus'.*Run 'taskflow health --help'/],
    [["migrate", "--console"], /--console is an option of serve\. Run 'taskflow serve --help'/],
    [["keys", "create"], /keys create needs --name <name>\. Run 'taskflow keys create --help'/],
    [["keys", "revoke"], /needs the key's id .*Run 'taskflow keys revoke --help'/],
    [["keys", "frob"], /unknown keys command 'frob'\. Run 'taskflow keys --help'/],
    [["serve", "--name", "x"], /belong to 'keys create'\. Run 'taskflow keys create --help'/],
    [["frob"], /unknown command 'frob'\. Run 'taskflow --help'/],
    [
      ["definitions", "validate"],
      /definitions validate needs FILE, the definition \(\.json, \.yaml or \.yml\)\. Run 'taskflow definitions validate --help'/,
    ],
    [["definitions", "publish"], /definitions publish needs FILE/],
    [["definitions", "validate", "a.json", "b.json"], /unexpected argument 'b\.json'/],
    [["definitions", "diff"], /needs two files \(FILE_A FILE_B\) or a key and two versions/],
    [["definitions", "diff", "leave"], /a second file, or two versions \(FROM TO\) of key 'leave'/],
    [["definitions", "diff", "k", "1", "2", "3"], /unexpected argument '3'/],
    [
      ["definitions", "frob"],
      /unknown definitions command 'frob'\. Run 'taskflow definitions --help'/,
    ],
  ];
  for (const [args, message] of cases) {
    const r = await cli(args);
    const at = args.join(" ");
    assert.equal(r.code, 2, `${at}: ${r.err}`);
    assert.match(r.err, message, at);
    assert.equal(r.err.trim().split("\n").length, 1, `${at}: one line`);
    assert.equal(r.out, "", at);
  }
});

/**
 * A small disk for the SQLite "disk full" scenario: a 32 MiB tmpfs mounted on
 * a temp directory (needs root, which the test machine has), filled with a
 * filler file on demand. A real full file system, so SQLite meets ENOSPC
 * wherever it writes (database, WAL, journal), unlike `PRAGMA max_page_count`
 * (the database file only, and a setting the nodes would have to apply) or a
 * file size limit (SIGXFSZ kills the process instead of failing the write).
 */
import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Room for the scenario's database and WAL (a few MiB) with margin. */
const SIZE = "32m";

export interface SmallDisk {
  readonly dir: string;
  /** Writes a filler file until the disk refuses another byte. */
  fill(): void;
  /** Deletes the filler. */
  free(): void;
  unmount(): void;
}

/** A mounted tmpfs, or the reason there is none (not root, no mount). */
export function mountSmallDisk(): SmallDisk | string {
  const dir = mkdtempSync(join(tmpdir(), "tf-chaos-disk-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${SIZE}`, "tmpfs", dir], { stdio: "pipe" });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    return `cannot mount a tmpfs: ${(e as Error).message.split("\n")[0]}`;
  }
  const filler = join(dir, "filler");
  return {
    dir,
    fill() {
      const fd = openSync(filler, "a");
      try {
        // 1 MiB blocks, then 4 KiB ones: the last free page goes too.
        for (const size of [1 << 20, 4096, 512]) {
          const block = Buffer.alloc(size);
          for (;;) {
            try {
              writeSync(fd, block);
            } catch {
              break;
            }
          }
        }
      } finally {
        closeSync(fd);
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    unmount() {
      try {
        execFileSync("umount", ["-l", dir], { stdio: "pipe" });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

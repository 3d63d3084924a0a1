// Runs a Python program under real MicroPython (the WebAssembly port from npm) with the hub
// firmware's files in its path: node run.mjs FIRMWARE_DIR PROGRAM.py
// What the program prints goes to stdout; an uncaught exception goes to stderr and exits 1.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";

const [firmware, program] = process.argv.slice(2);
const mp = await loadMicroPython({
  heapsize: 8 * 1024 * 1024,
  stdout: (line) => process.stdout.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
});
mp.FS.mkdir("/firmware");
for (const name of readdirSync(firmware)) {
  if (name.endsWith(".py")) mp.FS.writeFile(join("/firmware", name), readFileSync(join(firmware, name)));
}
try {
  mp.runPython("import sys\nsys.path.insert(0, '/firmware')\n" + readFileSync(program, "utf8"));
} catch (error) {
  process.stderr.write(String(error.message || error) + "\n");
  process.exit(1);
}

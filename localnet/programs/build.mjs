// build.mjs — assembles cpswap.s into cpswap.so (`make localnet-programs`,
// needs LLVM's llvm-mc and llvm-objcopy; the .so is committed, so localnet
// itself needs neither).
//
// llvm-mc gives a relocatable object; the SBPF v0 loader wants a shared
// object, so the text is wrapped here in the smallest ELF it accepts: the
// ELF header (EM_BPF, e_flags 0 for SBPF v0), one PT_LOAD, and the .text and
// .shstrtab sections, .text's address equal to its offset. The program
// makes no calls and reads no data, so it needs no relocations or symbols.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function wrapText(text) {
  const EH = 64, PH = 56, SH = 64;
  const textOff = EH + PH;
  const shstr = Buffer.from('\0.text\0.shstrtab\0');
  const shstrOff = textOff + text.length;
  const shOff = (shstrOff + shstr.length + 7) & ~7;
  const b = Buffer.alloc(shOff + 3 * SH);
  b.write('\x7fELF', 0, 'latin1');
  b[4] = 2; b[5] = 1; b[6] = 1; // ELFCLASS64, little endian, EV_CURRENT; OS ABI 0
  b.writeUInt16LE(3, 16); // ET_DYN
  b.writeUInt16LE(247, 18); // EM_BPF
  b.writeUInt32LE(1, 20);
  b.writeBigUInt64LE(BigInt(textOff), 24); // e_entry: the first instruction
  b.writeBigUInt64LE(BigInt(EH), 32);
  b.writeBigUInt64LE(BigInt(shOff), 40);
  b.writeUInt32LE(0, 48); // SBPF v0
  b.writeUInt16LE(EH, 52); b.writeUInt16LE(PH, 54); b.writeUInt16LE(1, 56);
  b.writeUInt16LE(SH, 58); b.writeUInt16LE(3, 60); b.writeUInt16LE(2, 62);
  const ph = EH; // PT_LOAD, R+X
  b.writeUInt32LE(1, ph); b.writeUInt32LE(5, ph + 4);
  for (const o of [8, 16, 24]) b.writeBigUInt64LE(BigInt(textOff), ph + o);
  b.writeBigUInt64LE(BigInt(text.length), ph + 32); b.writeBigUInt64LE(BigInt(text.length), ph + 40);
  b.writeBigUInt64LE(8n, ph + 48);
  text.copy(b, textOff);
  shstr.copy(b, shstrOff);
  const t = shOff + SH; // .text: PROGBITS, ALLOC|EXECINSTR
  b.writeUInt32LE(1, t); b.writeUInt32LE(1, t + 4); b.writeBigUInt64LE(6n, t + 8);
  b.writeBigUInt64LE(BigInt(textOff), t + 16); b.writeBigUInt64LE(BigInt(textOff), t + 24);
  b.writeBigUInt64LE(BigInt(text.length), t + 32); b.writeBigUInt64LE(8n, t + 48);
  const s = t + SH; // .shstrtab
  b.writeUInt32LE(7, s); b.writeUInt32LE(3, s + 4);
  b.writeBigUInt64LE(BigInt(shstrOff), s + 24); b.writeBigUInt64LE(BigInt(shstr.length), s + 32); b.writeBigUInt64LE(1n, s + 48);
  return b;
}

export function assemble(source) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpswap-'));
  try {
    const obj = path.join(dir, 'p.o'), bin = path.join(dir, 'p.bin');
    execFileSync('llvm-mc', ['-triple', 'bpfel', '-filetype=obj', '-o', obj, source]);
    execFileSync('llvm-objcopy', ['-O', 'binary', '--only-section=.text', obj, bin]);
    return wrapText(fs.readFileSync(bin));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const so = assemble(path.join(here, 'cpswap.s'));
  if (process.argv[2] === '--check') {
    const committed = fs.readFileSync(path.join(here, 'cpswap.so'));
    if (!committed.equals(so)) {
      console.error('programs/cpswap.so is not what cpswap.s assembles to: run make localnet-programs');
      process.exit(1);
    }
    console.log('programs/cpswap.so matches cpswap.s');
  } else {
    fs.writeFileSync(path.join(here, 'cpswap.so'), so);
    console.log(`programs/cpswap.so: ${so.length} bytes`);
  }
}

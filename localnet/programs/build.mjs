// build.mjs — assembles cpswap.s into cpswap.so (`make localnet-programs`,
// needs LLVM's llvm-mc and llvm-objcopy; the .so is committed, so localnet
// itself needs neither).
//
// llvm-mc gives a relocatable object; the SBPF v0 loader wants a shared
// object, so the text is wrapped here in a small one: the ELF header (EM_BPF,
// e_flags 0 for SBPF v0), a PT_LOAD over .text, and a dynamic section whose
// relocations name the syscalls the program calls (the loader writes each
// name's hash into its call). The program reads no data, so .text is all.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function wrapText(text, relocs = []) {
  // Layout: header, program headers (PT_LOAD over .text, PT_DYNAMIC), then
  // .text, .dynamic, .dynsym, .dynstr, .rel.dyn, .shstrtab and the section
  // headers, each section's address equal to its offset.
  const EH = 64, PH = 56, SH = 64;
  const align8 = (n) => (n + 7) & ~7;
  const names = [...new Set(relocs.map((r) => r.name))];
  const dynstr = Buffer.from('\0' + names.map((n) => n + '\0').join(''));
  const nameOff = (n) => dynstr.indexOf(Buffer.from('\0' + n + '\0')) + 1;
  const shstr = Buffer.from('\0.text\0.dynamic\0.dynsym\0.dynstr\0.rel.dyn\0.shstrtab\0');
  const shName = (n) => shstr.indexOf(Buffer.from('\0' + n + '\0')) + 1;
  const textOff = EH + 2 * PH;
  const dynOff = align8(textOff + text.length);
  const dynEntries = 8;
  const symOff = dynOff + dynEntries * 16;
  const symLen = (names.length + 1) * 24;
  const strOff = symOff + symLen;
  const relOff = align8(strOff + dynstr.length);
  const relLen = relocs.length * 16;
  const shstrOff = relOff + relLen;
  const shOff = align8(shstrOff + shstr.length);
  const sections = [
    null,
    { name: '.text', type: 1, flags: 6n, off: textOff, size: text.length, align: 8n },
    { name: '.dynamic', type: 6, flags: 3n, off: dynOff, size: dynEntries * 16, align: 8n, link: 4, entsize: 16n },
    { name: '.dynsym', type: 11, flags: 2n, off: symOff, size: symLen, align: 8n, link: 4, info: 1, entsize: 24n },
    { name: '.dynstr', type: 3, flags: 2n, off: strOff, size: dynstr.length, align: 1n },
    { name: '.rel.dyn', type: 9, flags: 2n, off: relOff, size: relLen, align: 8n, link: 3, entsize: 16n },
    { name: '.shstrtab', type: 3, flags: 0n, off: shstrOff, size: shstr.length, align: 1n, noaddr: true },
  ];
  const b = Buffer.alloc(shOff + sections.length * SH);
  b.write('\x7fELF', 0, 'latin1');
  b[4] = 2; b[5] = 1; b[6] = 1; // ELFCLASS64, little endian, EV_CURRENT; OS ABI 0
  b.writeUInt16LE(3, 16); // ET_DYN
  b.writeUInt16LE(247, 18); // EM_BPF
  b.writeUInt32LE(1, 20);
  b.writeBigUInt64LE(BigInt(textOff), 24); // e_entry: the first instruction
  b.writeBigUInt64LE(BigInt(EH), 32);
  b.writeBigUInt64LE(BigInt(shOff), 40);
  b.writeUInt32LE(0, 48); // SBPF v0
  b.writeUInt16LE(EH, 52); b.writeUInt16LE(PH, 54); b.writeUInt16LE(2, 56);
  b.writeUInt16LE(SH, 58); b.writeUInt16LE(sections.length, 60); b.writeUInt16LE(sections.length - 1, 62);
  const phdr = (at, type, flags, off, size, align) => {
    b.writeUInt32LE(type, at); b.writeUInt32LE(flags, at + 4);
    for (const o of [8, 16, 24]) b.writeBigUInt64LE(BigInt(off), at + o);
    b.writeBigUInt64LE(BigInt(size), at + 32); b.writeBigUInt64LE(BigInt(size), at + 40);
    b.writeBigUInt64LE(align, at + 48);
  };
  phdr(EH, 1, 5, textOff, text.length, 8n); // PT_LOAD, R+X
  phdr(EH + PH, 2, 6, dynOff, dynEntries * 16, 8n); // PT_DYNAMIC
  text.copy(b, textOff);
  // .dynamic: DT_REL, DT_RELSZ, DT_RELENT, DT_SYMTAB, DT_SYMENT, DT_STRTAB, DT_STRSZ, DT_NULL
  const dyn = relocs.length ? [[17, relOff], [18, relLen], [19, 16], [6, symOff], [11, 24], [5, strOff], [10, dynstr.length], [0, 0]]
    : [[6, symOff], [11, 24], [5, strOff], [10, dynstr.length], [0, 0], [0, 0], [0, 0], [0, 0]];
  dyn.forEach(([tag, val], i) => {
    b.writeBigUInt64LE(BigInt(tag), dynOff + 16 * i); b.writeBigUInt64LE(BigInt(val), dynOff + 16 * i + 8);
  });
  // .dynsym: the null symbol, then each syscall, global and undefined
  names.forEach((n, i) => {
    const at = symOff + 24 * (i + 1);
    b.writeUInt32LE(nameOff(n), at); b[at + 4] = 0x10;
  });
  dynstr.copy(b, strOff);
  // .rel.dyn: R_BPF_64_32 at each call, against its symbol
  relocs.forEach((r, i) => {
    const at = relOff + 16 * i;
    b.writeBigUInt64LE(BigInt(textOff + r.offset), at);
    b.writeBigUInt64LE((BigInt(names.indexOf(r.name) + 1) << 32n) | 10n, at + 8);
  });
  shstr.copy(b, shstrOff);
  sections.forEach((s, i) => {
    if (!s) return;
    const at = shOff + SH * i;
    b.writeUInt32LE(shName(s.name), at); b.writeUInt32LE(s.type, at + 4); b.writeBigUInt64LE(s.flags, at + 8);
    b.writeBigUInt64LE(s.noaddr ? 0n : BigInt(s.off), at + 16); b.writeBigUInt64LE(BigInt(s.off), at + 24);
    b.writeBigUInt64LE(BigInt(s.size), at + 32); b.writeUInt32LE(s.link ?? 0, at + 40); b.writeUInt32LE(s.info ?? 0, at + 44);
    b.writeBigUInt64LE(s.align, at + 48); b.writeBigUInt64LE(s.entsize ?? 0n, at + 56);
  });
  return b;
}

export function assemble(source) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpswap-'));
  try {
    const obj = path.join(dir, 'p.o'), bin = path.join(dir, 'p.bin');
    execFileSync('llvm-mc', ['-triple', 'bpfel', '-filetype=obj', '-o', obj, source]);
    execFileSync('llvm-objcopy', ['-O', 'binary', '--only-section=.text', obj, bin]);
    // The calls to syscalls: R_BPF_64_32 records of .text, carried over as
    // dynamic relocations, which the loader resolves by the symbol's name.
    const relocs = [];
    for (const line of execFileSync('llvm-objdump', ['-r', obj], { encoding: 'utf8' }).split('\n')) {
      const m = /^([0-9a-f]{16})\s+R_BPF_64_32\s+(\S+)$/.exec(line.trim());
      if (m) relocs.push({ offset: parseInt(m[1], 16), name: m[2] });
    }
    return wrapText(fs.readFileSync(bin), relocs);
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

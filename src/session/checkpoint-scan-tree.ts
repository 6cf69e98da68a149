/**
 * What a folder scan (checkpoint-scan.ts) remembers of the folders it walked — a tree of nodes, no path-keyed maps —
 * and the small walks over it.
 */
import fs from 'node:fs';
import type { Fact, Stamp } from './checkpoint-stat-log.js';

export type Mode = '100644' | '100755' | '120000';

export interface FileNode {
  readonly kind: 'file';
  readonly mode: Mode;
  readonly oid: string;
  readonly stamp: Stamp;
  /** Changed in the tick it was read: not trusted by its stat data next time. */
  readonly racy: boolean;
  pass: number;
}

export interface DirNode {
  readonly kind: 'dir';
  readonly ino: number;
  readonly rel: string;
  readonly abs: string;
  readonly parent: DirNode | undefined;
  /** What is tracked (files), walked (folders) or present but left out (skipped) below it, by name. */
  readonly children: Map<string, Node>;
  /** Names git left out (ignored): not walked, not asked again until a `.gitignore` changes. */
  ignored: Set<string> | undefined;
  /** Its tree's id, until something below it changes. */
  tree: string | undefined;
  pass: number;
}

/** A path present but not in the snapshot (too big, a nested repository, not regular, unreadable), and why. */
export interface SkipNode {
  readonly kind: 'skip';
  readonly stamp: Stamp;
  readonly why: string;
  pass: number;
}

export type Node = FileNode | DirNode | SkipNode;

/** Something below `dir` changed: its tree, and each one above it, is written again. */
export function touched(dir: DirNode | undefined): void {
  for (let d = dir; d; d = d.parent) d.tree = undefined;
}

/** The facts of the files known below `dir` (links and racy files left out), for the stat log written whole. */
export function* facts(dir: DirNode): Generator<Fact> {
  for (const [name, child] of dir.children) {
    if (child.kind === 'dir') yield* facts(child);
    else if (child.kind === 'file' && !child.racy && child.mode !== '120000') yield { rel: join(dir.rel, name), oid: child.oid, stamp: child.stamp };
  }
}

export function clearIgnored(dir: DirNode): void {
  dir.ignored = undefined;
  for (const child of dir.children.values()) if (child.kind === 'dir') clearIgnored(child);
}

export function join(dir: string, name: string): string {
  return dir === '' ? name : `${dir}/${name}`;
}

export function parentOf(rel: string): string {
  const i = rel.lastIndexOf('/');
  return i === -1 ? '' : rel.slice(0, i);
}

export function lstatOf(abs: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(abs, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

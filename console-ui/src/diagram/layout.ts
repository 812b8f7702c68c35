/**
 * Positions for the graph's nodes, by dagre (layered, top to bottom): a
 * definition has no coordinates of its own, and people read a process from
 * its start downwards.
 */
import { Graph, layout } from "@dagrejs/dagre";
import type { DefinitionGraph } from "./definition-graph.ts";

export const NODE_WIDTH = 190;
export const NODE_HEIGHT = 58;

export interface Position {
  x: number;
  y: number;
}

/** Top-left corner of each state's box, by state id. */
export function layoutGraph(graph: DefinitionGraph): Map<string, Position> {
  const g = new Graph();
  g.setGraph({ rankdir: "TB", nodesep: 40, ranksep: 70, edgesep: 20 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const s of graph.states) g.setNode(s.id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  for (const t of graph.transitions) g.setEdge(t.source, t.target, {});
  layout(g);
  const positions = new Map<string, Position>();
  for (const s of graph.states) {
    const n = g.node(s.id) as { x: number; y: number };
    // dagre gives centres; React Flow places nodes by their top-left corner.
    positions.set(s.id, { x: n.x - NODE_WIDTH / 2, y: n.y - NODE_HEIGHT / 2 });
  }
  return positions;
}

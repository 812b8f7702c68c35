/**
 * A definition's states and transitions, laid out by dagre and drawn by React
 * Flow, read-only. Reusable: give it the definition document; `highlighted`
 * marks the states a run passed through, `current` the ones it is in now
 * (ids as definition-graph.ts makes them: a state's name at the top level).
 *
 * React Flow's CSS comes as a file, not injected: the Console's CSP allows
 * no inline <style>. Positions are set through the DOM's style properties,
 * which the CSP allows (only style attributes and elements are refused).
 */
import {
  Background,
  Controls,
  MarkerType,
  ReactFlow,
  type Edge,
  type NodeTypes,
} from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { useMemo } from "react";
import { definitionGraph, type DefinitionGraph } from "./definition-graph.ts";
import "./diagram.css";
import { layoutGraph, NODE_HEIGHT } from "./layout.ts";
import { StateNodeBox, type StateFlowNode } from "./state-node.tsx";
import { TransitionList } from "./transition-list.tsx";

export interface DefinitionDiagramProps {
  /** The definition document (as GET definitions/{key}/versions/{v} answers it in `definition`). */
  definition: unknown;
  /** States to mark as passed. */
  highlighted?: ReadonlySet<string>;
  /** States to mark as the current ones. */
  current?: ReadonlySet<string>;
  /** Names the figure, e.g. "leave, version 2". */
  title: string;
}

const NODE_TYPES: NodeTypes = { state: StateNodeBox };
const NONE: ReadonlySet<string> = new Set();

function flowOf(
  graph: DefinitionGraph,
  highlighted: ReadonlySet<string>,
  current: ReadonlySet<string>,
) {
  const positions = layoutGraph(graph);
  const nodes: StateFlowNode[] = graph.states.map((s) => ({
    id: s.id,
    type: "state",
    position: positions.get(s.id) ?? { x: 0, y: 0 },
    ariaLabel: `state ${s.id}, ${s.type}${highlighted.has(s.id) ? ", passed" : ""}${current.has(s.id) ? ", current" : ""}`,
    data: {
      name: s.name,
      type: s.type,
      start: s.start,
      highlighted: highlighted.has(s.id),
      current: current.has(s.id),
    },
  }));
  const edges: Edge[] = graph.transitions.map((t) => {
    const passed =
      highlighted.has(t.source) && (highlighted.has(t.target) || current.has(t.target));
    return {
      id: t.id,
      source: t.source,
      target: t.target,
      label: t.label === "" ? undefined : t.label,
      ariaLabel: `from ${t.source} to ${t.target}${t.label === "" ? "" : ` on ${t.label}`}`,
      markerEnd: { type: MarkerType.ArrowClosed },
      className: passed ? "passed" : undefined,
    };
  });
  return { nodes, edges, size: sizeOf(nodes) };
}

/**
 * The canvas's height class, by the drawing's height: a tall definition in a
 * short canvas would be zoomed down past reading. A class, not a style: the
 * house keeps styles in CSS files.
 */
function sizeOf(nodes: StateFlowNode[]): "small" | "medium" | "large" {
  const height = Math.max(0, ...nodes.map((n) => n.position.y + NODE_HEIGHT));
  if (height <= 420) return "small";
  return height <= 720 ? "medium" : "large";
}

export function DefinitionDiagram({
  definition,
  highlighted = NONE,
  current = NONE,
  title,
}: DefinitionDiagramProps) {
  const graph = useMemo(() => definitionGraph(definition), [definition]);
  const { nodes, edges, size } = useMemo(
    () => flowOf(graph, highlighted, current),
    [graph, highlighted, current],
  );
  if (graph.states.length === 0) return <p>This definition has no states to draw.</p>;
  return (
    <figure className="definition-diagram">
      <figcaption>Diagram: {title}</figcaption>
      <div className={`diagram-canvas ${size}`}>
        <ReactFlow
          nodes={nodes}
          edges={edges}
          nodeTypes={NODE_TYPES}
          fitView
          fitViewOptions={{ maxZoom: 1.2 }}
          nodesDraggable={false}
          nodesConnectable={false}
          elementsSelectable={false}
          edgesFocusable={false}
          minZoom={0.2}
        >
          <Background />
          <Controls showInteractive={false} />
        </ReactFlow>
      </div>
      <TransitionList graph={graph} highlighted={highlighted} current={current} />
    </figure>
  );
}

/** One state's box in the diagram: its name and type; classes mark the start, passed and current states. */
import { Handle, Position, type Node, type NodeProps } from "@xyflow/react";

export interface StateNodeData extends Record<string, unknown> {
  name: string;
  type: string;
  start: boolean;
  highlighted: boolean;
  current: boolean;
}

export type StateFlowNode = Node<StateNodeData, "state">;

export function StateNodeBox({ data }: NodeProps<StateFlowNode>) {
  const classes = ["state-node", `state-${data.type}`];
  if (data.start) classes.push("start");
  if (data.highlighted) classes.push("highlighted");
  if (data.current) classes.push("current");
  return (
    <div className={classes.join(" ")} data-state={data.name}>
      <Handle type="target" position={Position.Top} isConnectable={false} />
      <span className="state-name">{data.name}</span>
      <span className="state-type">
        {data.type}
        {data.start ? " · start" : ""}
        {data.current ? " · now" : ""}
      </span>
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
    </div>
  );
}

/** The operator area's pages. */
import type { AreaPage } from "../../area.ts";

export const operatorPages: AreaPage[] = [];

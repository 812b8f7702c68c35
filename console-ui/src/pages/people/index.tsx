/** The people area's pages. */
import type { AreaPage } from "../../area.ts";

export const peoplePages: AreaPage[] = [];

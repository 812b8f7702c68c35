/** The admin area's pages. */
import type { AreaPage } from "../../area.ts";

export const adminPages: AreaPage[] = [];

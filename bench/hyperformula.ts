/**
 * The spreadsheet baseline of the order benchmark: the same order in
 * HyperFormula (a bench-only dependency), one row per item (`A` price, `B`
 * qty, `C` = A*B) and `D1` = SUM(C1:CN), and the cost of one cell change with
 * its recalculation, the counterpart of one qty mutation.
 *
 * @module
 */
import { HyperFormula } from "hyperformula";

/** An order as a spreadsheet: item rows and the change of the n-th call. */
export interface SpreadsheetWorkload {
  rows: { price: number; qty: number }[];
  /** The row and new qty of the n-th change (the same as the engine's n-th mutation). */
  change(call: number): { row: number; qty: number };
}

/** Builds the workbook; the returned operation changes one qty cell and reads the recalculated sum. */
export function spreadsheet(
  workload: SpreadsheetWorkload,
): { change: (call: number) => void; sum(): number } {
  const hf = HyperFormula.buildEmpty({ licenseKey: "gpl-v3" });
  const sheet = hf.getSheetId(hf.addSheet("order"))!;
  const n = workload.rows.length;
  const content: (number | string)[][] = workload.rows.map((
    row,
    i,
  ) => [row.price, row.qty, `=A${i + 1}*B${i + 1}`]);
  content[0].push(`=SUM(C1:C${n})`);
  hf.setSheetContent(sheet, content);
  const total = { sheet, row: 0, col: 3 };
  return {
    change: (call) => {
      const { row, qty } = workload.change(call);
      hf.setCellContents({ sheet, row, col: 1 }, [[qty]]);
      hf.getCellValue(total);
    },
    sum: () => hf.getCellValue(total) as number,
  };
}

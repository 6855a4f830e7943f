/** A column heading: its text, or a number column's (right-aligned, as its cells are). */
export type Column = string | { label: string; number: true };

/**
 * A table's header row. `actions` adds the column of each row's buttons, named for screen
 * readers only. A column given as `false` is left out (one shown only in some views).
 */
export function TableHead({ columns, actions }: { columns: ReadonlyArray<Column | false>; actions?: boolean }) {
  return (
    <thead>
      <tr>
        {columns.map((column) =>
          column === false ? null : typeof column === "string" ? (
            <th scope="col" key={column}>
              {column}
            </th>
          ) : (
            <th scope="col" class="number" key={column.label}>
              {column.label}
            </th>
          ),
        )}
        {actions && (
          <th scope="col">
            <span class="visually-hidden">Actions</span>
          </th>
        )}
      </tr>
    </thead>
  );
}

"use client";

/** One agent's row as the server wrote it: the history link, name, e-mail, then the figures' texts. */
export type AgentRow = [href: string, name: string, email: string, ...figures: string[]];

/**
 * The rows of the table per agent. A client component only to be cheap on the server: its rows travel in the React
 * payload as arrays of texts, where 200 agents' rows of server-rendered cells were each serialised element by
 * element (and parsed again for the HTML). It renders the same markup, and holds no state.
 */
export function AgentRows({ rows }: { rows: AgentRow[] }) {
  return rows.map(([href, name, email, ...figures]) => (
    <tr key={href}>
      <th scope="row">
        {/* A plain link: one prefetching <Link> per agent would each add work to the page. */}
        <a href={href}>{name}</a> <small>{email}</small>
      </th>
      {figures.map((figure, index) => (
        <td key={index}>{figure}</td>
      ))}
    </tr>
  ));
}

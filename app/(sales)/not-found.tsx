import { NotFoundNotice } from "@/components/ui/not-found-notice";

// A sale or dashboard that is not there (notFound()): inside the sales layout, which already is the <main>.
export default function SalesNotFound() {
  return <NotFoundNotice />;
}

-- The history's search box finds part of a customer's name with its accents ignored, through a trigram index
-- (pg_trgm: PostgreSQL's contrib, an extension PGlite loads). sales_fold is the one folding rule: the index is built
-- on it and every search applies it to what was typed. translate() before lower(): under the C locale lower()
-- leaves accented capitals alone. IMMUTABLE, so an index may use it; the unaccent extension's function is not.
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE FUNCTION "sales_fold"(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT lower(translate($1,
    'ÁÀÂÃÄÅáàâãäåÇçÉÈÊËéèêëÍÌÎÏíìîïÑñÓÒÔÕÖóòôõöÚÙÛÜúùûüÝýÿ',
    'AAAAAAaaaaaaCcEEEEeeeeIIIIiiiiNnOOOOOoooooUUUUuuuuYyy'))
$$;

//! Parameter shapes from debug info: what each pointer parameter of a defined function
//! points to when the source says it is a struct, a class, a `std::array` or a
//! `std::vector` ([`fpir::ParamShape`]).
//!
//! `llvm-ir` does not expose debug-info metadata, so this module reads the records it
//! needs from the module's text (as `llvm-dis-14` prints it): each `define` line's
//! `!dbg` subprogram, the `DILocalVariable(name:, arg:, scope:, type:)` of each
//! parameter, and the type records below it (`DIDerivedType` members, pointers,
//! references, typedefs and qualifiers; `DICompositeType` structs, classes and arrays
//! with their `DISubrange` counts; `DIBasicType` scalars). A parameter is matched to its
//! variable by name (the loader compiles with `-fno-discard-value-names`, so LLVM keeps
//! source names). Bit-fields, unions and `long double` fields leave a parameter without
//! a shape: it is then passed as before. A small struct passed by value arrives split
//! into scalars (`q.coerce0`, `q.coerce1`): each is named after the one field it holds
//! (`q.a`), and a `std::span`'s pointer piece is a [`ParamShape::Span`].

use fpir::{FieldShape, FloatTy, Module, ParamShape, Passing, StructShape, Type};
use std::collections::{BTreeMap, HashMap};

/// The largest number of fields a flattened struct may have (larger ones keep no shape).
const MAX_FIELDS: usize = 4096;

/// True when some defined function of `module` takes a pointer to a struct: only then is
/// the module's text worth reading.
pub(crate) fn has_struct_params(module: &llvm_ir::Module) -> bool {
    module
        .functions
        .iter()
        .flat_map(|f| &f.parameters)
        .any(|p| {
            let split = matches!(&p.name, llvm_ir::Name::Name(n) if n.contains(".coerce"));
            split
                || matches!(p.ty.as_ref(), llvm_ir::Type::PointerType { pointee_type, .. }
            if matches!(pointee_type.as_ref(),
                llvm_ir::Type::NamedStructType { .. } | llvm_ir::Type::StructType { .. }))
        })
}

/// Gives the pointer parameters of the functions of `module` their shapes, from the
/// debug info in `text` (the LLVM module's text form), and names the scalars a small
/// struct passed by value is split into (`q.coerce0`) after the field each one holds
/// (`q.a`), when it holds exactly one of its type.
pub(crate) fn apply(module: &mut Module, text: &str) {
    let info = DebugInfo::parse(text);
    let mut shapes = BTreeMap::new();
    let mut renames = Vec::new();
    for (fid, func) in module.funcs.iter() {
        let Some(&subprogram) = info.subprograms.get(&func.name) else {
            continue;
        };
        for (i, (&reg, name)) in func.params().iter().zip(&func.param_names).enumerate() {
            let Some(name) = name else { continue };
            let ty = func.regs[reg];
            let (source, piece) = match name.rsplit_once(".coerce") {
                Some((source, piece)) => (source, piece.parse::<u64>().ok()),
                None => (name.as_str(), None),
            };
            let shape = info
                .args
                .get(&(subprogram, source.to_string()))
                .and_then(|&t| info.shape(t));
            match (shape, piece) {
                (Some(ParamShape::Span(_)), None) => {}
                (Some(span @ ParamShape::Span(_)), Some(0)) if ty == Type::Ptr => {
                    shapes.insert((fid, i), span);
                }
                (Some(shape), None) if ty == Type::Ptr => {
                    // `v.coerce`: a small struct as one vector value, which lowering
                    // keeps in memory like the struct itself.
                    if source != name {
                        renames.push((fid, i, source.to_string()));
                    }
                    shapes.insert((fid, i), shape);
                }
                (Some(ParamShape::Struct(s)), Some(piece)) => {
                    if let Some(path) = eightbyte_field(&s, piece, ty) {
                        renames.push((fid, i, ParamShape::field_name(source, path)));
                    }
                }
                _ => {}
            }
        }
    }
    for (fid, i, name) in renames {
        module.funcs[fid].param_names[i] = Some(name);
    }
    module.param_shapes = shapes;
}

/// The path of the one field of `shape` in its eightbyte `piece`, when it has type `ty`.
fn eightbyte_field(shape: &StructShape, piece: u64, ty: Type) -> Option<&str> {
    let inside: Vec<_> = shape
        .fields
        .iter()
        .filter(|f| f.offset / 8 == piece)
        .collect();
    match inside.as_slice() {
        [only] if only.ty == ty => Some(&only.path),
        _ => None,
    }
}

/// A record as the lookups return it: its kind (`DIDerivedType`), its fields, its node.
type Record<'a> = (&'a str, &'a [(String, String)], u32);

/// One metadata node: a tuple `!{...}` or a record `!DIKind(key: value, ...)`.
#[derive(Debug)]
enum Node {
    Tuple(Vec<String>),
    Record {
        kind: String,
        fields: Vec<(String, String)>,
    },
}

/// The debug-info records of a module's text.
#[derive(Debug, Default)]
struct DebugInfo {
    nodes: HashMap<u32, Node>,
    /// Node of each type's ODR `identifier:` (C++ types may be referred to by it).
    identifiers: HashMap<String, u32>,
    /// Subprogram node of each defined function.
    subprograms: HashMap<String, u32>,
    /// Type node of each parameter variable, by subprogram and name.
    args: HashMap<(u32, String), u32>,
}

impl DebugInfo {
    fn parse(text: &str) -> DebugInfo {
        let mut info = DebugInfo::default();
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("define ") {
                if let Some((name, sp)) = define_line(rest) {
                    info.subprograms.insert(name, sp);
                }
            } else if let Some((id, node)) = metadata_line(line) {
                info.nodes.insert(id, node);
            }
        }
        for (&id, node) in &info.nodes {
            let Node::Record { kind, fields } = node else {
                continue;
            };
            let get = |key: &str| fields.iter().find(|(k, _)| k == key).map(|(_, v)| v);
            if kind == "DICompositeType" {
                if let Some(ident) = get("identifier") {
                    info.identifiers.insert(unquote(ident).to_string(), id);
                }
            }
            if kind == "DILocalVariable" {
                let arg = get("arg");
                let (name, scope, ty) = (get("name"), get("scope"), get("type"));
                if let (Some(_), Some(name), Some(scope), Some(ty)) = (arg, name, scope, ty) {
                    if let (Some(scope), Some(ty)) = (node_ref(scope), node_ref(ty)) {
                        info.args.insert((scope, unquote(name).to_string()), ty);
                    }
                }
            }
        }
        info
    }

    /// The record `id` refers to (through an identifier string when it is one).
    fn record(&self, reference: &str) -> Option<Record<'_>> {
        let id = match node_ref(reference) {
            Some(id) => id,
            None => *self
                .identifiers
                .get(unquote(reference.strip_prefix('!')?))?,
        };
        match self.nodes.get(&id)? {
            Node::Record { kind, fields } => Some((kind, fields, id)),
            Node::Tuple(_) => None,
        }
    }

    fn record_by_id(&self, id: u32) -> Option<Record<'_>> {
        self.record(&format!("!{id}"))
    }

    /// The type `reference` names with typedefs and qualifiers stripped.
    fn strip(&self, reference: &str) -> Option<Record<'_>> {
        let mut current = self.record(reference)?;
        for _ in 0..64 {
            let (kind, fields, _) = current;
            let tag = field(fields, "tag");
            let qualifier = matches!(
                tag,
                Some("DW_TAG_typedef" | "DW_TAG_const_type" | "DW_TAG_volatile_type")
            );
            if kind != "DIDerivedType" || !qualifier {
                return Some(current);
            }
            current = self.record(field(fields, "baseType")?)?;
        }
        None
    }

    /// The shape of a parameter of type node `ty`: what its pointer or reference points
    /// to, or the struct itself when it is passed by value in memory.
    fn shape(&self, ty: u32) -> Option<ParamShape> {
        let (kind, fields, _) = self.strip(&format!("!{ty}"))?;
        let (passing, target) = match (kind, field(fields, "tag")) {
            ("DIDerivedType", Some("DW_TAG_pointer_type")) => {
                (Passing::Pointer, field(fields, "baseType")?.to_string())
            }
            ("DIDerivedType", Some("DW_TAG_reference_type" | "DW_TAG_rvalue_reference_type")) => {
                (Passing::Reference, field(fields, "baseType")?.to_string())
            }
            _ => (Passing::Value, format!("!{ty}")),
        };
        let typedef = self.typedef_name(&target);
        let (kind, fields, id) = self.strip(&target)?;
        let tag = field(fields, "tag")?;
        if kind != "DICompositeType"
            || !matches!(tag, "DW_TAG_structure_type" | "DW_TAG_class_type")
        {
            return None;
        }
        let name = unquote(field(fields, "name").unwrap_or("\"\"")).to_string();
        let identifier = field(fields, "identifier").map(unquote).unwrap_or("");
        if name.starts_with("vector<") && identifier.starts_with("_ZTSSt6vector") {
            let elem = self.vector_elem(fields).or_else(|| element_named(&name));
            return elem.map(ParamShape::Vector);
        }
        if name.starts_with("span<") && identifier.starts_with("_ZTSSt4span") {
            return element_named(&name).map(ParamShape::Span);
        }
        if field(fields, "flags").is_some_and(|f| f.contains("DIFlagFwdDecl")) {
            return None;
        }
        let size = bytes(fields)?;
        let mut out = Vec::new();
        self.flatten(id, "", 0, &mut out)?;
        if name.starts_with("array<") && identifier.starts_with("_ZTSSt5array") {
            // `a[2]`, as the source indexes it, rather than libstdc++'s `a._M_elems[2]`.
            for field in &mut out {
                if let Some(index) = field.path.strip_prefix("_M_elems") {
                    field.path = index.to_string();
                }
            }
        }
        let spelling = match typedef {
            Some(typedef) => typedef,
            None if tag == "DW_TAG_structure_type" && identifier.is_empty() => {
                format!("struct {name}")
            }
            None => self.qualified(fields, name),
        };
        Some(ParamShape::Struct(StructShape {
            name: spelling,
            passing,
            size,
            fields: out,
        }))
    }

    /// `name` qualified by the namespaces and classes of its `scope:` (`std::array<...>`).
    fn qualified(&self, fields: &[(String, String)], name: String) -> String {
        let mut parts = vec![name];
        let mut scope = field(fields, "scope").map(str::to_string);
        while let Some(reference) = scope.take().filter(|_| parts.len() < 16) {
            let Some((kind, outer, _)) = self.record(&reference) else {
                break;
            };
            if !matches!(kind, "DINamespace" | "DICompositeType") {
                break;
            }
            if let Some(outer_name) = field(outer, "name") {
                parts.push(unquote(outer_name).to_string());
            }
            scope = field(outer, "scope").map(str::to_string);
        }
        parts.reverse();
        parts.join("::")
    }

    /// The name of the first typedef on the way from `reference` to its type, if any.
    fn typedef_name(&self, reference: &str) -> Option<String> {
        let mut current = self.record(reference)?;
        for _ in 0..64 {
            let (kind, fields, _) = current;
            match (kind, field(fields, "tag")) {
                ("DIDerivedType", Some("DW_TAG_typedef")) => {
                    return field(fields, "name").map(|n| unquote(n).to_string())
                }
                ("DIDerivedType", Some("DW_TAG_const_type" | "DW_TAG_volatile_type")) => {
                    current = self.record(field(fields, "baseType")?)?;
                }
                _ => return None,
            }
        }
        None
    }

    /// The element type of a `std::vector`: its first template parameter.
    fn vector_elem(&self, fields: &[(String, String)]) -> Option<Type> {
        let params = node_ref(field(fields, "templateParams")?)?;
        let Node::Tuple(items) = self.nodes.get(&params)? else {
            return None;
        };
        let (_, first, _) = self.record(items.first()?)?;
        let (_, basic, _) = self.strip(field(first, "type")?)?;
        basic_type(basic)
    }

    /// Appends the scalar fields of composite `id` at `offset`, their paths after `prefix`.
    fn flatten(&self, id: u32, prefix: &str, offset: u64, out: &mut Vec<FieldShape>) -> Option<()> {
        let (_, fields, _) = self.record_by_id(id)?;
        let Some(elements) = field(fields, "elements") else {
            return Some(());
        };
        let Node::Tuple(items) = self.nodes.get(&node_ref(elements)?)? else {
            return None;
        };
        for item in items {
            let Some((kind, member, _)) = self.record(item) else {
                continue;
            };
            let tag = field(member, "tag");
            if kind != "DIDerivedType" {
                continue;
            }
            let flags = field(member, "flags").unwrap_or("");
            let at = offset + field(member, "offset").map_or(Some(0), parse_u64)? / 8;
            match tag {
                Some("DW_TAG_member") if flags.contains("DIFlagStaticMember") => {}
                Some("DW_TAG_member") if flags.contains("DIFlagBitField") => return None,
                Some("DW_TAG_member") => {
                    let name = unquote(field(member, "name")?);
                    let path = match prefix {
                        "" => name.to_string(),
                        _ => format!("{prefix}.{name}"),
                    };
                    self.field(field(member, "baseType")?, &path, at, out)?;
                }
                Some("DW_TAG_inheritance") => {
                    let (_, _, base) = self.strip(field(member, "baseType")?)?;
                    self.flatten(base, prefix, at, out)?;
                }
                _ => {}
            }
        }
        Some(())
    }

    /// Appends the scalar fields of a value of type `reference` at `offset` named `path`.
    fn field(
        &self,
        reference: &str,
        path: &str,
        offset: u64,
        out: &mut Vec<FieldShape>,
    ) -> Option<()> {
        if out.len() > MAX_FIELDS {
            return None;
        }
        let (kind, fields, id) = self.strip(reference)?;
        let tag = field(fields, "tag").unwrap_or("");
        let ty = match (kind, tag) {
            ("DIBasicType", _) => basic_type(fields)?,
            (
                "DIDerivedType",
                "DW_TAG_pointer_type" | "DW_TAG_reference_type" | "DW_TAG_rvalue_reference_type",
            ) => Type::Ptr,
            ("DICompositeType", "DW_TAG_enumeration_type") => {
                Type::Int(u8::try_from(parse_u64(field(fields, "size")?)?).ok()?)
            }
            ("DICompositeType", "DW_TAG_structure_type" | "DW_TAG_class_type") => {
                return self.flatten(id, path, offset, out);
            }
            ("DICompositeType", "DW_TAG_array_type") => {
                let dims = self.array_dims(fields)?;
                let elem = field(fields, "baseType")?;
                let (_, elem_fields, _) = self.strip(elem)?;
                return self.array(elem, bytes(elem_fields)?, &dims, path, offset, out);
            }
            _ => return None,
        };
        out.push(FieldShape {
            path: path.to_string(),
            offset,
            ty,
        });
        Some(())
    }

    /// The element counts of an array type, outermost first.
    fn array_dims(&self, fields: &[(String, String)]) -> Option<Vec<u64>> {
        let Node::Tuple(items) = self.nodes.get(&node_ref(field(fields, "elements")?)?)? else {
            return None;
        };
        items
            .iter()
            .map(|item| {
                let (_, range, _) = self.record(item)?;
                parse_u64(field(range, "count")?)
            })
            .collect()
    }

    /// Appends the fields of an array of `dims` elements of type `elem` (`stride` bytes).
    fn array(
        &self,
        elem: &str,
        stride: u64,
        dims: &[u64],
        path: &str,
        offset: u64,
        out: &mut Vec<FieldShape>,
    ) -> Option<()> {
        let Some((&count, inner)) = dims.split_first() else {
            return self.field(elem, path, offset, out);
        };
        let inner_size: u64 = inner.iter().product::<u64>() * stride;
        for k in 0..count {
            let at = offset + k * inner_size;
            self.array(elem, stride, inner, &format!("{path}[{k}]"), at, out)?;
        }
        Some(())
    }
}

/// The element type a `vector<T, std::allocator<T> >` name spells, for a vector that
/// the debug info only declares (no template parameters).
fn element_named(name: &str) -> Option<Type> {
    let inner = name[name.find('<')? + 1..].trim_start();
    let inner = inner.strip_prefix("const ").unwrap_or(inner);
    let first = inner[..inner.find([',', '>'])?].trim();
    Some(match first {
        "double" => Type::Float(FloatTy::F64),
        "float" => Type::Float(FloatTy::F32),
        "int" | "unsigned int" => Type::I32,
        "long" | "unsigned long" | "long long" | "unsigned long long" => Type::I64,
        "short" | "unsigned short" => Type::Int(16),
        "char" | "signed char" | "unsigned char" => Type::I8,
        _ => return None,
    })
}

/// The scalar type of a `DIBasicType`, when fpir has one.
fn basic_type(fields: &[(String, String)]) -> Option<Type> {
    let size = parse_u64(field(fields, "size")?)?;
    match (field(fields, "encoding")?, size) {
        ("DW_ATE_float", 64) => Some(Type::Float(FloatTy::F64)),
        ("DW_ATE_float", 32) => Some(Type::Float(FloatTy::F32)),
        ("DW_ATE_float", _) => None,
        (_, 8 | 16 | 32 | 64) => Some(Type::Int(size as u8)),
        _ => None,
    }
}

/// A type's size in bytes (pointers have 64 bits).
fn bytes(fields: &[(String, String)]) -> Option<u64> {
    field(fields, "size")
        .and_then(parse_u64)
        .map(|bits| bits / 8)
}

fn field<'a>(fields: &'a [(String, String)], key: &str) -> Option<&'a str> {
    fields
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

fn parse_u64(text: &str) -> Option<u64> {
    text.trim().parse().ok()
}

/// `!12` as 12.
fn node_ref(text: &str) -> Option<u32> {
    text.trim().strip_prefix('!')?.parse().ok()
}

fn unquote(text: &str) -> &str {
    let t = text.trim();
    t.strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(t)
}

/// The function name and `!dbg` node of a `define` line (after `define `).
fn define_line(rest: &str) -> Option<(String, u32)> {
    let at = rest.find('@')?;
    let after = &rest[at + 1..];
    let name = match after.strip_prefix('"') {
        Some(quoted) => quoted[..quoted.find('"')?].to_string(),
        None => after[..after.find('(')?].to_string(),
    };
    let dbg = rest.rfind("!dbg !")?;
    let digits: String = rest[dbg + 6..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    Some((name, digits.parse().ok()?))
}

/// `!N = [distinct] !{...}` or `!N = [distinct] !DIKind(...)`.
fn metadata_line(line: &str) -> Option<(u32, Node)> {
    let (head, body) = line.split_once(" = ")?;
    let id = node_ref(head)?;
    let body = body.trim();
    let body = body.strip_prefix("distinct ").unwrap_or(body);
    if let Some(tuple) = body.strip_prefix("!{") {
        let inner = tuple.strip_suffix('}')?;
        let items = split_top(inner).into_iter().map(str::to_string).collect();
        return Some((id, Node::Tuple(items)));
    }
    let record = body.strip_prefix('!')?;
    let open = record.find('(')?;
    let kind = record[..open].to_string();
    let inner = record[open + 1..].strip_suffix(')')?;
    let fields = split_top(inner)
        .into_iter()
        .filter_map(|item| {
            let (key, value) = item.split_once(':')?;
            Some((key.trim().to_string(), value.trim().to_string()))
        })
        .collect();
    Some((id, Node::Record { kind, fields }))
}

/// Splits at commas outside strings and brackets.
fn split_top(text: &str) -> Vec<&str> {
    let (mut items, mut depth, mut quoted, mut start) = (Vec::new(), 0i32, false, 0);
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            '(' | '{' | '[' if !quoted => depth += 1,
            ')' | '}' | ']' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                items.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = text[start..].trim();
    if !last.is_empty() {
        items.push(last);
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records clang-14 -O0 -g writes for `struct particle { double pos[3]; double
    /// mass; struct state st; struct particle *next; }` with `struct state { struct vec3
    /// v; int flags; }` and a `step(struct particle *p, double dt)` taking it.
    const PARTICLE: &str = r#"
define dso_local double @step(%struct.particle* noundef %p, double noundef %dt) #0 !dbg !10 {
!10 = distinct !DISubprogram(name: "step", scope: !1, file: !1, line: 10, type: !11, scopeLine: 10, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !0, retainedNodes: !34)
!13 = !DIBasicType(name: "double", size: 64, encoding: DW_ATE_float)
!14 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !15, size: 64)
!15 = distinct !DICompositeType(tag: DW_TAG_structure_type, name: "particle", file: !1, line: 3, size: 576, elements: !16)
!16 = !{!17, !21, !22, !33}
!17 = !DIDerivedType(tag: DW_TAG_member, name: "pos", scope: !15, file: !1, line: 4, baseType: !18, size: 192)
!18 = !DICompositeType(tag: DW_TAG_array_type, baseType: !13, size: 192, elements: !19)
!19 = !{!20}
!20 = !DISubrange(count: 3)
!21 = !DIDerivedType(tag: DW_TAG_member, name: "mass", scope: !15, file: !1, line: 5, baseType: !13, size: 64, offset: 192)
!22 = !DIDerivedType(tag: DW_TAG_member, name: "st", scope: !15, file: !1, line: 6, baseType: !23, size: 256, offset: 256)
!23 = distinct !DICompositeType(tag: DW_TAG_structure_type, name: "state", file: !1, line: 2, size: 256, elements: !24)
!24 = !{!25, !31}
!25 = !DIDerivedType(tag: DW_TAG_member, name: "v", scope: !23, file: !1, line: 2, baseType: !26, size: 192)
!26 = distinct !DICompositeType(tag: DW_TAG_structure_type, name: "vec3", file: !1, line: 1, size: 192, elements: !27)
!27 = !{!28, !29, !30}
!28 = !DIDerivedType(tag: DW_TAG_member, name: "x", scope: !26, file: !1, line: 1, baseType: !13, size: 64)
!29 = !DIDerivedType(tag: DW_TAG_member, name: "y", scope: !26, file: !1, line: 1, baseType: !13, size: 64, offset: 64)
!30 = !DIDerivedType(tag: DW_TAG_member, name: "z", scope: !26, file: !1, line: 1, baseType: !13, size: 64, offset: 128)
!31 = !DIDerivedType(tag: DW_TAG_member, name: "flags", scope: !23, file: !1, line: 2, baseType: !32, size: 32, offset: 192)
!32 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!33 = !DIDerivedType(tag: DW_TAG_member, name: "next", scope: !15, file: !1, line: 7, baseType: !14, size: 64, offset: 512)
!35 = !DILocalVariable(name: "p", arg: 1, scope: !10, file: !1, line: 10, type: !14)
!37 = !DILocalVariable(name: "dt", arg: 2, scope: !10, file: !1, line: 10, type: !13)
"#;

    #[test]
    fn a_struct_pointer_flattens_to_named_fields() {
        let info = DebugInfo::parse(PARTICLE);
        assert_eq!(info.subprograms.get("step"), Some(&10));
        let ty = info.args[&(10, "p".to_string())];
        let Some(ParamShape::Struct(shape)) = info.shape(ty) else {
            panic!("no struct shape")
        };
        assert_eq!(
            (shape.name.as_str(), shape.passing, shape.size),
            ("struct particle", Passing::Pointer, 72)
        );
        let fields: Vec<(&str, u64, Type)> = shape
            .fields
            .iter()
            .map(|f| (f.path.as_str(), f.offset, f.ty))
            .collect();
        assert_eq!(
            fields,
            vec![
                ("pos[0]", 0, Type::F64),
                ("pos[1]", 8, Type::F64),
                ("pos[2]", 16, Type::F64),
                ("mass", 24, Type::F64),
                ("st.v.x", 32, Type::F64),
                ("st.v.y", 40, Type::F64),
                ("st.v.z", 48, Type::F64),
                ("st.flags", 56, Type::I32),
                ("next", 64, Type::Ptr),
            ]
        );
        let dt = info.args[&(10, "dt".to_string())];
        assert_eq!(info.shape(dt), None, "a double is no struct");
    }

    #[test]
    fn a_declared_vector_takes_its_element_from_its_name() {
        assert_eq!(
            element_named("vector<double, std::allocator<double> >"),
            Some(Type::F64)
        );
        assert_eq!(element_named("vector<float>"), Some(Type::F32));
        assert_eq!(element_named("vector<std::string>"), None);
        assert_eq!(
            element_named("span<const double, 18446744073709551615UL>"),
            Some(Type::F64)
        );
    }

    #[test]
    fn strings_with_commas_stay_one_field() {
        let (_, node) = metadata_line(
            r#"!5 = distinct !DICompositeType(tag: DW_TAG_class_type, name: "vector<double, std::allocator<double> >", size: 192)"#,
        )
        .unwrap();
        let Node::Record { kind, fields } = node else {
            panic!("a record")
        };
        assert_eq!(kind, "DICompositeType");
        assert_eq!(
            field(&fields, "name"),
            Some(r#""vector<double, std::allocator<double> >""#)
        );
        assert_eq!(field(&fields, "size"), Some("192"));
    }
}

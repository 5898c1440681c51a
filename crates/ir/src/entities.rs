//! Typed `u32` ids for every IR entity and a vector indexed by them.
//!
//! Ids print with a short prefix (`f1`, `bb2`, `v7`, `g0`, `br3`, `op5`) so IR text,
//! reports and path specs all speak the same names.

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// An entity id: a `u32` newtype usable as an index into an [`EntityVec`].
pub trait EntityId: Copy + Eq + Ord + std::hash::Hash + fmt::Debug {
    /// Makes the id of the `index`-th entity.
    fn new(index: usize) -> Self;
    /// The position of this entity in its table.
    fn index(self) -> usize;
}

macro_rules! entity {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);

        impl EntityId for $name {
            #[inline]
            fn new(index: usize) -> Self {
                $name(u32::try_from(index).expect("entity table exceeds u32"))
            }
            #[inline]
            fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl $name {
            /// The text prefix of this id kind.
            pub const PREFIX: &'static str = $prefix;
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(self, f)
            }
        }
    };
}

entity!(
    /// A function of the module.
    Func,
    "f"
);
entity!(
    /// A basic block of a function.
    Block,
    "bb"
);
entity!(
    /// A virtual register of a function (SSA value, block parameter or constant).
    Reg,
    "v"
);
entity!(
    /// A global variable of the module.
    Global,
    "g"
);
entity!(
    /// A conditional branch or switch, numbered module-wide.
    BranchSite,
    "br"
);
entity!(
    /// A floating-point arithmetic operation or math call, numbered module-wide.
    OpSite,
    "op"
);
entity!(
    /// A source file named by debug locations.
    FileId,
    "file"
);

/// A vector indexed by a typed id.
#[derive(Clone, PartialEq, Eq)]
pub struct EntityVec<K, V> {
    items: Vec<V>,
    key: PhantomData<K>,
}

impl<K: EntityId, V> EntityVec<K, V> {
    /// An empty table.
    pub fn new() -> Self {
        EntityVec {
            items: Vec::new(),
            key: PhantomData,
        }
    }

    /// Appends `value` and returns its id.
    pub fn push(&mut self, value: V) -> K {
        let id = K::new(self.items.len());
        self.items.push(value);
        id
    }

    /// Number of entities.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when the table holds nothing.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The entity with id `key`, if it exists.
    pub fn get(&self, key: K) -> Option<&V> {
        self.items.get(key.index())
    }

    /// All ids in order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = K> {
        (0..self.items.len()).map(K::new)
    }

    /// All values in id order.
    pub fn values(&self) -> std::slice::Iter<'_, V> {
        self.items.iter()
    }

    /// All (id, value) pairs in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (K, &V)> {
        self.items.iter().enumerate().map(|(i, v)| (K::new(i), v))
    }

    /// The values as a slice, indexed by `K::index`.
    pub fn as_slice(&self) -> &[V] {
        &self.items
    }
}

impl<K: EntityId, V> Default for EntityVec<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: EntityId, V: fmt::Debug> fmt::Debug for EntityVec<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: EntityId, V> Index<K> for EntityVec<K, V> {
    type Output = V;
    #[inline]
    fn index(&self, key: K) -> &V {
        &self.items[key.index()]
    }
}

impl<K: EntityId, V> IndexMut<K> for EntityVec<K, V> {
    #[inline]
    fn index_mut(&mut self, key: K) -> &mut V {
        &mut self.items[key.index()]
    }
}

impl<K: EntityId, V> FromIterator<V> for EntityVec<K, V> {
    fn from_iter<I: IntoIterator<Item = V>>(iter: I) -> Self {
        EntityVec {
            items: iter.into_iter().collect(),
            key: PhantomData,
        }
    }
}
